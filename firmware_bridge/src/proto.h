/* edge-agent bridge protocol 1: portable line framing, JSON request parser, dispatcher and
 * reply encoder. See ../PROTOCOL.md for the wire format; this file is its executable form. */
#ifndef PROTO_H
#define PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_VERSION 1
#define FW_VERSION "0.1.0"
#define PROTO_MAX_LINE 512   /* request bytes before the terminator */
#define PROTO_MAX_REPLY 1024 /* reply bytes including the terminator */
#define PROTO_MAX_DATA 128   /* bytes in one hex payload or read */
#define PROTO_MAX_ID 24      /* characters of a string id */
#define PROTO_MAX_ARGS 8

/* Error codes (PROTOCOL.md, "Error codes"). */
enum proto_err {
    E_MALFORMED = 1,
    E_TOO_LONG = 2,
    E_BAD_ID = 3,
    E_UNKNOWN_CMD = 4,
    E_MISSING_ARG = 5,
    E_BAD_ARG = 6,
    E_BAD_PIN = 7,
    E_RESERVED = 8,
    E_NACK = 9,
    E_TIMEOUT = 10,
    E_BUSY = 11,
    E_UNSUPPORTED = 12,
    E_INTERNAL = 13,
};

struct proto_rx {
    char buf[PROTO_MAX_LINE];
    size_t len;
    uint8_t overflow; /* discarding bytes until the next line terminator */
};

/* Reset pin state and announce the (re)start with the boot banner. */
void proto_boot(struct proto_rx *rx);
/* Feed one received byte; complete lines are handled and answered through hal_write. */
void proto_rx_byte(struct proto_rx *rx, uint8_t c);
/* Handle one complete request line (no terminator; may contain any byte). */
void proto_handle_line(const char *line, size_t len);

#endif
