/* Coverage-guided fuzz target for the protocol core (libFuzzer), on a checking HAL.
 *
 * Each input is a byte stream from the host: it is fed to a freshly booted core one byte at a
 * time, as the UART would deliver it, and ends with a newline so every line is served. The HAL
 * below is a model of the NUCLEO-F401RE that aborts the run (a libFuzzer crash) as soon as the
 * core does something the board forbids:
 *   - touches a port/pin that is not in the header table, or a reserved pin (the serial link);
 *   - drives an input-only pin (B1/PC13), muxes a pin to an alternate function it does not carry
 *     (I2C1 is AF4 on PB8/PB9, SPI1 AF5 on PA5-PA7), or makes a pin without ADC channel analog;
 *   - converts an ADC channel that no header pin carries;
 *   - runs an I2C or SPI transfer with the bus pins not muxed to it, an address above 0x7F, a
 *     length above the protocol's 128 bytes, or SPI settings outside the documented range;
 *   - sends a reply longer than the reply limit, not ending in exactly one newline, with a
 *     non-ASCII or control byte, that is not one valid JSON object, or that is neither a reply
 *     (with "id" and "ok") nor an event;
 *   - answers a non-empty line with anything but exactly one reply, or serves a line without
 *     refreshing the watchdog.
 *
 * Build and run: `make fuzz` (needs clang with libFuzzer), seeded from vectors/protocol-v1.jsonl.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/board.h"
#include "../src/hal.h"
#include "../src/proto.h"

#define CHECK(cond, ...)                                                                                       \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "fuzz_proto: " __VA_ARGS__);                                                       \
            fputc('\n', stderr);                                                                               \
            abort();                                                                                           \
        }                                                                                                      \
    } while (0)

/* ---- the board model ------------------------------------------------------------------------- */

struct pad {
    uint8_t mode, af, open_drain, latch;
};
static struct pad pads[3][16];
static unsigned replies, feeds;
static int i2c_enabled, spi_enabled;

static const struct pin_def *table_pin(uint8_t port, uint8_t pin) {
    for (unsigned i = 0; i < board_pin_count; i++) {
        if (board_pins[i].port == port && board_pins[i].pin == pin) return &board_pins[i];
    }
    return 0;
}

static const struct pin_def *usable_pin(uint8_t port, uint8_t pin) {
    const struct pin_def *p = table_pin(port, pin);
    CHECK(p, "pin P%c%u is not on the header table", 'A' + port, pin);
    CHECK(!p->reserved, "pin %s is the serial link and must never be touched", p->name);
    return p;
}

static int muxed(uint8_t port, uint8_t pin, uint8_t af) {
    return pads[port][pin].mode == HAL_MODE_AF && pads[port][pin].af == af;
}

void hal_init(void) {}
const char *hal_reset_reason(void) { return "power"; }
void hal_watchdog_feed(void) { feeds++; }

void hal_pin_mode(uint8_t port, uint8_t pin, uint8_t mode, uint8_t pull, uint8_t af, uint8_t open_drain) {
    const struct pin_def *p = usable_pin(port, pin);
    CHECK(mode <= HAL_MODE_ANALOG && pull <= HAL_PULL_DOWN, "pin %s: mode %u / pull %u out of range", p->name, mode,
          pull);
    CHECK(!(mode == HAL_MODE_OUT && p->input_only), "input-only pin %s made an output", p->name);
    CHECK(mode != HAL_MODE_ANALOG || p->adc >= 0, "pin %s has no ADC channel but was made analog", p->name);
    if (mode == HAL_MODE_AF) {
        int i2c = af == 4 && port == HAL_PORT_B && (pin == 8 || pin == 9) && open_drain;
        int spi = af == 5 && port == HAL_PORT_A && pin >= 5 && pin <= 7 && !open_drain;
        CHECK(i2c || spi, "pin %s muxed to AF%u (open drain %u), which it does not carry", p->name, af, open_drain);
    }
    pads[port][pin] = (struct pad){mode, af, open_drain, pads[port][pin].latch};
}

void hal_pin_write(uint8_t port, uint8_t pin, int level) {
    const struct pin_def *p = usable_pin(port, pin);
    CHECK(!p->input_only, "input-only pin %s written", p->name);
    pads[port][pin].latch = (uint8_t)(level != 0);
}

int hal_pin_read(uint8_t port, uint8_t pin) {
    usable_pin(port, pin);
    return pads[port][pin].mode == HAL_MODE_OUT ? pads[port][pin].latch : 1;
}

int hal_adc_read(uint8_t channel, uint16_t *value) {
    int known = 0;
    for (unsigned i = 0; i < board_pin_count; i++) known |= board_pins[i].adc == (int8_t)channel;
    CHECK(known, "ADC channel %u is on no header pin", channel);
    *value = (uint16_t)(channel * 100u);
    return HAL_OK;
}

void hal_i2c_enable(void) {
    CHECK(muxed(HAL_PORT_B, 8, 4) && muxed(HAL_PORT_B, 9, 4), "I2C1 enabled with PB8/PB9 not muxed to it");
    i2c_enabled = 1;
}

int hal_i2c_transfer(uint8_t addr, const uint8_t *w, size_t wn, uint8_t *r, size_t rn) {
    CHECK(i2c_enabled && muxed(HAL_PORT_B, 8, 4) && muxed(HAL_PORT_B, 9, 4), "I2C transfer without I2C1 on its pins");
    CHECK(addr <= 0x7F, "I2C address 0x%x is not 7-bit", addr);
    CHECK(wn <= PROTO_MAX_DATA && rn <= PROTO_MAX_DATA, "I2C transfer of %zu/%zu bytes", wn, rn);
    CHECK(wn == 0 || w, "I2C write without data");
    /* Targets at 0x50 (answers) and 0x40 (holds the bus) so both result paths are reached. */
    if (addr == 0x40) return HAL_ERR_BUSY;
    if (addr != 0x50) return HAL_ERR_NACK;
    for (size_t i = 0; i < rn; i++) r[i] = (uint8_t)(i ^ wn);
    return HAL_OK;
}

void hal_spi_enable(uint8_t mode, uint32_t hz) {
    CHECK(muxed(HAL_PORT_A, 5, 5) && muxed(HAL_PORT_A, 6, 5) && muxed(HAL_PORT_A, 7, 5),
          "SPI1 enabled with PA5-PA7 not muxed to it");
    CHECK(mode <= 3 && hz >= 1000 && hz <= 8000000, "SPI mode %u at %u Hz is outside the documented range", mode,
          (unsigned)hz);
    spi_enabled = 1;
}

int hal_spi_transfer(uint8_t *buf, size_t n) {
    CHECK(spi_enabled && muxed(HAL_PORT_A, 5, 5) && muxed(HAL_PORT_A, 6, 5) && muxed(HAL_PORT_A, 7, 5),
          "SPI transfer without SPI1 on its pins");
    CHECK(n >= 1 && n <= PROTO_MAX_DATA, "SPI transfer of %zu bytes", n);
    (void)buf;
    return HAL_OK;
}

/* ---- reply checks: one strict JSON object per line ------------------------------------------- */

struct js {
    const char *p, *end;
};

static void js_ws(struct js *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t')) s->p++;
}

static int js_value(struct js *s, int depth);

static int js_string(struct js *s) {
    if (s->p >= s->end || *s->p != '"') return -1;
    for (s->p++; s->p < s->end; s->p++) {
        unsigned char c = (unsigned char)*s->p;
        if (c == '"') {
            s->p++;
            return 0;
        }
        if (c < 0x20) return -1;
        if (c == '\\') {
            if (++s->p >= s->end) return -1;
            if (*s->p == 'u') {
                for (int k = 0; k < 4; k++) {
                    if (++s->p >= s->end || !strchr("0123456789abcdefABCDEF", *s->p)) return -1;
                }
            } else if (!strchr("\"\\/bfnrt", *s->p)) {
                return -1;
            }
        }
    }
    return -1;
}

static int js_number(struct js *s) {
    const char *q = s->p;
    if (q < s->end && *q == '-') q++;
    if (q >= s->end || *q < '0' || *q > '9') return -1;
    if (*q == '0' && q + 1 < s->end && q[1] >= '0' && q[1] <= '9') return -1;
    while (q < s->end && *q >= '0' && *q <= '9') q++;
    s->p = q;
    return 0; /* the firmware only ever writes integers */
}

static int js_word(struct js *s, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n)) return -1;
    s->p += n;
    return 0;
}

static int js_container(struct js *s, int depth, char close) {
    if (depth > 8) return -1;
    s->p++;
    js_ws(s);
    if (s->p < s->end && *s->p == close) {
        s->p++;
        return 0;
    }
    for (;;) {
        js_ws(s);
        if (close == '}') {
            if (js_string(s)) return -1;
            js_ws(s);
            if (s->p >= s->end || *s->p++ != ':') return -1;
            js_ws(s);
        }
        if (js_value(s, depth + 1)) return -1;
        js_ws(s);
        if (s->p >= s->end) return -1;
        char c = *s->p++;
        if (c == close) return 0;
        if (c != ',') return -1;
    }
}

static int js_value(struct js *s, int depth) {
    if (s->p >= s->end) return -1;
    switch (*s->p) {
    case '"': return js_string(s);
    case '{': return js_container(s, depth, '}');
    case '[': return js_container(s, depth, ']');
    case 't': return js_word(s, "true");
    case 'f': return js_word(s, "false");
    case 'n': return js_word(s, "null");
    default: return js_number(s);
    }
}

/* The reply buffer is not NUL-terminated: search only its n bytes. */
static int contains(const char *s, size_t n, const char *needle) {
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++) {
        if (!memcmp(s + i, needle, k)) return 1;
    }
    return 0;
}

void hal_write(const char *s, size_t n) {
    CHECK(n >= 3 && n <= PROTO_MAX_REPLY, "reply of %zu bytes (limit %d)", n, PROTO_MAX_REPLY);
    CHECK(s[n - 1] == '\n', "reply does not end with a newline: %.*s", (int)n, s);
    for (size_t i = 0; i + 1 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        CHECK(c >= 0x20 && c < 0x7F, "reply byte %zu is 0x%02x (replies are printable ASCII): %.*s", i, c, (int)n, s);
    }
    struct js j = {s, s + n - 1};
    CHECK(*s == '{' && js_value(&j, 0) == 0 && j.p == j.end, "reply is not one JSON object: %.*s", (int)n, s);
    int reply = n >= 6 && !memcmp(s, "{\"id\":", 6) && (contains(s, n, ",\"ok\":true,") || contains(s, n, ",\"ok\":false,"));
    int event = n >= 9 && !memcmp(s, "{\"event\":", 9);
    CHECK(reply || event, "line is neither a reply nor an event: %.*s", (int)n, s);
    if (reply) replies++;
}

/* ---- the target -------------------------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static struct proto_rx rx;
    memset(pads, 0, sizeof pads);
    i2c_enabled = spi_enabled = 0;
    proto_boot(&rx);
    replies = feeds = 0;

    /* The framing the protocol promises (PROTOCOL.md): a line ends at CR or LF; an empty line gets
     * no reply, every other line (an overlong one included) exactly one. */
    unsigned expected = 0, served = 0;
    size_t len = 0;
    for (size_t i = 0; i <= size; i++) {
        uint8_t c = i < size ? data[i] : (uint8_t)'\n';
        if (c == '\n' || c == '\r') {
            expected += len > 0;
            served++;
            len = 0;
        } else {
            len++;
        }
        unsigned before = replies;
        proto_rx_byte(&rx, c);
        CHECK(replies - before <= 1, "one byte drew %u replies", replies - before);
        CHECK(replies == expected, "after byte %zu: %u replies for %u non-empty lines", i, replies, expected);
        CHECK(feeds >= served, "%u lines served but the watchdog was fed %u times", served, feeds);
    }
    return 0;
}
