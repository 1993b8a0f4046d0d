/* edge-agent bridge protocol 1: framing, parser, dispatcher, encoder (portable C99, no heap).
 *
 * Every non-empty line gets exactly one reply line, except the boot banner which is sent
 * unasked. A line that is not a well-formed request gets an error reply whose id is the
 * request's id if the parser had read a valid one, else null.
 */
#include "proto.h"

#include <string.h>

#include "board.h"
#include "hal.h"

/* ---- reply encoder -------------------------------------------------------------------------- */

static char reply[PROTO_MAX_REPLY];
static size_t olen;

static void w_bytes(const char *s, size_t n) {
    /* Reserve 2 bytes for the closing brace and newline; the reply shapes are sized so a
     * well-formed reply never hits this, but a truncated one must still end its line. */
    size_t room = olen < sizeof reply - 2 ? sizeof reply - 2 - olen : 0;
    if (n > room) n = room;
    for (size_t i = 0; i < n; i++) reply[olen + i] = s[i];
    olen += n;
}
static void w_str(const char *s) { w_bytes(s, strlen(s)); }
static void w_char(char c) { w_bytes(&c, 1); }

static void w_long(long v) {
    char tmp[12];
    int i = 0;
    unsigned long u = v < 0 ? (unsigned long)(-(v + 1)) + 1u : (unsigned long)v;
    if (v < 0) w_char('-');
    do {
        tmp[i++] = (char)('0' + u % 10u);
        u /= 10u;
    } while (u && i < (int)sizeof tmp);
    while (i) w_char(tmp[--i]);
}

static const char HEX[] = "0123456789abcdef";

/* A JSON string literal. Replies are printable ASCII: controls (DEL included) are \u-escaped and
 * bytes >= 0x80 (which could be half a UTF-8 sequence after truncation) become '?'. */
static void w_json_str(const char *s, size_t n) {
    w_char('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            w_char('\\');
            w_char((char)c);
        } else if (c >= 0x80) {
            w_char('?');
        } else if (c < 0x20 || c == 0x7F) {
            char esc[6] = {'\\', 'u', '0', '0', HEX[c >> 4], HEX[c & 15]};
            w_bytes(esc, 6);
        } else {
            w_char((char)c);
        }
    }
    w_char('"');
}

static void w_hex(const uint8_t *b, size_t n) {
    w_char('"');
    for (size_t i = 0; i < n; i++) {
        w_char(HEX[b[i] >> 4]);
        w_char(HEX[b[i] & 15]);
    }
    w_char('"');
}

static void flush_reply(void) {
    reply[olen++] = '}';
    reply[olen++] = '\n';
    hal_write(reply, olen);
    olen = 0;
}

/* ---- request model ---------------------------------------------------------------------------- */

enum jtype { J_STR, J_INT, J_BOOL, J_NULL, J_NUM, J_NESTED };

struct jval {
    uint8_t type;
    const char *s; /* J_STR: decoded bytes in the string pool */
    size_t slen;
    long i; /* J_INT, J_BOOL */
};

struct arg {
    const char *key;
    size_t klen;
    struct jval v;
};

struct req {
    uint8_t id_kind; /* 0 none/invalid, 1 string, 2 integer */
    const char *id;
    size_t idlen;
    long idnum;
    uint8_t id_bad;
    const char *cmd;
    size_t cmdlen;
    uint8_t have_cmd, have_args, dup;
    struct arg args[PROTO_MAX_ARGS];
    int nargs;
    uint8_t too_many_args;
};

static void begin_reply(const struct req *r) {
    olen = 0;
    w_str("{\"id\":");
    if (r && r->id_kind == 1) {
        w_json_str(r->id, r->idlen);
    } else if (r && r->id_kind == 2) {
        w_long(r->idnum);
    } else {
        w_str("null");
    }
}

static void reply_error(const struct req *r, int code, const char *msg, const char *detail, size_t dlen) {
    begin_reply(r);
    w_str(",\"ok\":false,\"result\":\"\",\"error\":\"");
    w_str(msg);
    if (detail) {
        /* Quote the offending token inside the message, escaped like the rest of the string. */
        size_t start = olen;
        w_json_str(detail, dlen > 40 ? 40 : dlen);
        /* Drop the outer quotes w_json_str added; wrap in single quotes instead. */
        reply[start] = '\'';
        reply[olen - 1] = '\'';
    }
    w_str("\",\"code\":");
    w_long(code);
    flush_reply();
}

static void begin_ok(const struct req *r) {
    begin_reply(r);
    w_str(",\"ok\":true,\"result\":");
}

static void reply_ok_str(const struct req *r, const char *s) {
    begin_ok(r);
    w_json_str(s, strlen(s));
    flush_reply();
}

/* ---- JSON scanner ------------------------------------------------------------------------------- */

struct scan {
    const char *p, *end;
    char *pool; /* decoded strings; never longer than the line */
    size_t pool_used, pool_cap;
};

static void skip_ws(struct scan *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n')) s->p++;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decode a string literal into the pool. Returns 0 on success. \u escapes above U+007F are
 * refused: no command needs them and refusing keeps the decoder small. */
static int scan_string(struct scan *s, const char **str, size_t *len) {
    if (s->p >= s->end || *s->p != '"') return -1;
    s->p++;
    char *dst = s->pool + s->pool_used;
    size_t n = 0;
    while (s->p < s->end) {
        unsigned char c = (unsigned char)*s->p++;
        if (c == '"') {
            *str = dst;
            *len = n;
            s->pool_used += n;
            return 0;
        }
        if (c < 0x20) return -1;
        if (c == '\\') {
            if (s->p >= s->end) return -1;
            char e = *s->p++;
            switch (e) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                if (s->end - s->p < 4) return -1;
                int v = 0;
                for (int k = 0; k < 4; k++) {
                    int h = hexval(s->p[k]);
                    if (h < 0) return -1;
                    v = v * 16 + h;
                }
                if (v > 0x7F) return -1;
                s->p += 4;
                c = (unsigned char)v;
                break;
            }
            default: return -1;
            }
        }
        if (s->pool_used + n >= s->pool_cap) return -1;
        dst[n++] = (char)c;
    }
    return -1;
}

/* Read `"key"` and the ':' after it, leaving s->p at the value. Returns 0, or -1 if malformed. */
static int scan_key(struct scan *s, const char **k, size_t *kl) {
    skip_ws(s);
    if (scan_string(s, k, kl)) return -1;
    skip_ws(s);
    if (s->p >= s->end || *s->p != ':') return -1;
    s->p++;
    skip_ws(s);
    return 0;
}

/* After an object member: 1 if a ',' announces another, 0 at the closing '}', -1 otherwise. */
static int next_member(struct scan *s) {
    skip_ws(s);
    if (s->p >= s->end) return -1;
    if (*s->p == ',') {
        s->p++;
        return 1;
    }
    if (*s->p == '}') {
        s->p++;
        return 0;
    }
    return -1;
}

/* A JSON number. Integers that fit in 31 bits become J_INT; anything else valid is J_NUM. */
static int scan_number(struct scan *s, struct jval *v) {
    const char *q = s->p;
    int neg = 0, big = 0, frac = 0;
    long acc = 0;
    if (q < s->end && *q == '-') {
        neg = 1;
        q++;
    }
    if (q >= s->end || *q < '0' || *q > '9') return -1;
    if (*q == '0' && q + 1 < s->end && q[1] >= '0' && q[1] <= '9') return -1; /* no leading zeros */
    while (q < s->end && *q >= '0' && *q <= '9') {
        /* Stop accumulating past 2^31 - 1: long is 32 bits on the MCU and overflow is undefined. */
        if (!big && (acc > 214748364L || (acc == 214748364L && *q > '7'))) big = 1;
        if (!big) acc = acc * 10 + (*q - '0');
        q++;
    }
    if (q < s->end && *q == '.') {
        frac = 1;
        q++;
        if (q >= s->end || *q < '0' || *q > '9') return -1;
        while (q < s->end && *q >= '0' && *q <= '9') q++;
    }
    if (q < s->end && (*q == 'e' || *q == 'E')) {
        frac = 1;
        q++;
        if (q < s->end && (*q == '+' || *q == '-')) q++;
        if (q >= s->end || *q < '0' || *q > '9') return -1;
        while (q < s->end && *q >= '0' && *q <= '9') q++;
    }
    s->p = q;
    if (frac || big) {
        v->type = J_NUM;
    } else {
        v->type = J_INT;
        v->i = neg ? -acc : acc;
    }
    return 0;
}

static int scan_literal(struct scan *s, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0) return -1;
    s->p += n;
    return 0;
}

static int scan_value(struct scan *s, struct jval *v, int depth);

/* Skip an object or array (bounded depth so a hostile line cannot exhaust the stack). */
static int scan_container(struct scan *s, int depth) {
    char close = *s->p == '{' ? '}' : ']';
    int is_obj = close == '}';
    if (depth > 4) return -1;
    s->p++;
    skip_ws(s);
    if (s->p < s->end && *s->p == close) {
        s->p++;
        return 0;
    }
    for (;;) {
        struct jval tmp;
        skip_ws(s);
        if (is_obj) {
            const char *k;
            size_t kl;
            if (scan_string(s, &k, &kl)) return -1;
            skip_ws(s);
            if (s->p >= s->end || *s->p != ':') return -1;
            s->p++;
            skip_ws(s);
        }
        if (scan_value(s, &tmp, depth + 1)) return -1;
        skip_ws(s);
        if (s->p >= s->end) return -1;
        if (*s->p == ',') {
            s->p++;
            continue;
        }
        if (*s->p == close) {
            s->p++;
            return 0;
        }
        return -1;
    }
}

static int scan_value(struct scan *s, struct jval *v, int depth) {
    if (s->p >= s->end) return -1;
    char c = *s->p;
    if (c == '"') {
        v->type = J_STR;
        return scan_string(s, &v->s, &v->slen);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return scan_number(s, v);
    if (c == 't') {
        v->type = J_BOOL;
        v->i = 1;
        return scan_literal(s, "true");
    }
    if (c == 'f') {
        v->type = J_BOOL;
        v->i = 0;
        return scan_literal(s, "false");
    }
    if (c == 'n') {
        v->type = J_NULL;
        return scan_literal(s, "null");
    }
    if (c == '{' || c == '[') {
        v->type = J_NESTED;
        return scan_container(s, depth);
    }
    return -1;
}

static int key_is(const char *k, size_t kl, const char *name) { return strlen(name) == kl && memcmp(k, name, kl) == 0; }

static int scan_args(struct scan *s, struct req *r) {
    /* s->p is at '{' */
    s->p++;
    skip_ws(s);
    if (s->p < s->end && *s->p == '}') {
        s->p++;
        return 0;
    }
    for (;;) {
        const char *k;
        size_t kl;
        struct jval v;
        if (scan_key(s, &k, &kl)) return -1;
        if (scan_value(s, &v, 2)) return -1;
        for (int i = 0; i < r->nargs; i++) {
            if (r->args[i].klen == kl && memcmp(r->args[i].key, k, kl) == 0) r->dup = 1;
        }
        if (r->nargs < PROTO_MAX_ARGS) {
            r->args[r->nargs].key = k;
            r->args[r->nargs].klen = kl;
            r->args[r->nargs].v = v;
            r->nargs++;
        } else {
            r->too_many_args = 1;
        }
        int more = next_member(s);
        if (more <= 0) return more;
    }
}

/* Parse a whole request line into r. Returns 0, or -1 if the line is not a well-formed JSON
 * object. The id is stored as soon as it is read, so an error reply can still echo it. */
static int parse_request(struct scan *s, struct req *r) {
    skip_ws(s);
    if (s->p >= s->end || *s->p != '{') return -1;
    s->p++;
    skip_ws(s);
    if (s->p < s->end && *s->p == '}') {
        s->p++;
        goto tail;
    }
    for (;;) {
        const char *k;
        size_t kl;
        struct jval v;
        if (scan_key(s, &k, &kl)) return -1;
        if (key_is(k, kl, "args") && s->p < s->end && *s->p == '{') {
            if (r->have_args) r->dup = 1;
            r->have_args = 1;
            if (scan_args(s, r)) return -1;
        } else {
            if (scan_value(s, &v, 1)) return -1;
            if (key_is(k, kl, "id")) {
                if (r->id_kind || r->id_bad) r->dup = 1;
                if (v.type == J_STR && v.slen >= 1 && v.slen <= PROTO_MAX_ID) {
                    r->id_kind = 1;
                    r->id = v.s;
                    r->idlen = v.slen;
                } else if (v.type == J_INT && v.i >= 0) {
                    r->id_kind = 2;
                    r->idnum = v.i;
                } else {
                    r->id_kind = 0;
                    r->id_bad = 1;
                }
            } else if (key_is(k, kl, "cmd")) {
                if (r->have_cmd) r->dup = 1;
                r->have_cmd = 1;
                r->cmd = v.type == J_STR ? v.s : 0;
                r->cmdlen = v.type == J_STR ? v.slen : 0;
            } else if (key_is(k, kl, "args")) {
                if (r->have_args) r->dup = 1;
                r->have_args = 1;
                if (v.type != J_NULL) r->dup = 1; /* args must be an object (or null) */
            }
            /* Other keys are ignored so later protocol minors can add fields. */
        }
        int more = next_member(s);
        if (more < 0) return -1;
        if (more == 0) break;
    }
tail:
    skip_ws(s);
    return s->p == s->end ? 0 : -1;
}

/* ---- argument helpers ----------------------------------------------------------------------------- */

static const struct jval *arg(const struct req *r, const char *name) {
    for (int i = 0; i < r->nargs; i++) {
        if (key_is(r->args[i].key, r->args[i].klen, name)) return &r->args[i].v;
    }
    return 0;
}

/* Returns 0 and sets *out, or sends the error reply and returns -1. A missing optional
 * argument (required == 0) leaves *out untouched. */
static int int_arg(const struct req *r, const char *name, long lo, long hi, int required, long *out) {
    const struct jval *v = arg(r, name);
    if (!v || (v->type == J_NULL && !required)) {
        if (!required) return 0;
        reply_error(r, E_MISSING_ARG, "missing argument ", name, strlen(name));
        return -1;
    }
    long x;
    if (v->type == J_INT) {
        x = v->i;
    } else if (v->type == J_BOOL) {
        x = v->i;
    } else {
        reply_error(r, E_BAD_ARG, "argument must be an integer: ", name, strlen(name));
        return -1;
    }
    if (x < lo || x > hi) {
        reply_error(r, E_BAD_ARG, "argument out of range: ", name, strlen(name));
        return -1;
    }
    *out = x;
    return 0;
}

static int hex_arg(const struct req *r, const char *name, size_t min, uint8_t *buf, size_t *n) {
    const struct jval *v = arg(r, name);
    if (!v) {
        reply_error(r, E_MISSING_ARG, "missing argument ", name, strlen(name));
        return -1;
    }
    if (v->type != J_STR || (v->slen & 1u) || v->slen / 2 > PROTO_MAX_DATA || v->slen / 2 < min) {
        reply_error(r, E_BAD_ARG, "argument must be an even-length hex string of at most 128 bytes: ", name,
                    strlen(name));
        return -1;
    }
    for (size_t i = 0; i < v->slen; i += 2) {
        int hi = hexval(v->s[i]), lo = hexval(v->s[i + 1]);
        if (hi < 0 || lo < 0) {
            reply_error(r, E_BAD_ARG, "argument is not hex: ", name, strlen(name));
            return -1;
        }
        buf[i / 2] = (uint8_t)(hi * 16 + lo);
    }
    *n = v->slen / 2;
    return 0;
}

/* Resolve the pin argument: an Arduino D number (Revka's protocol-0 integer) or a name. */
static const struct pin_def *pin_arg(const struct req *r, const char *name, int required) {
    const struct jval *v = arg(r, name);
    const struct pin_def *p = 0;
    if (!v) {
        if (required) reply_error(r, E_MISSING_ARG, "missing argument ", name, strlen(name));
        return 0;
    }
    if (v->type == J_INT) {
        p = board_find_number(v->i);
        if (!p) {
            reply_error(r, E_BAD_PIN, "no such pin number; digital pins are 2-15 (D0/D1 are the link): ", name,
                        strlen(name));
            return 0;
        }
    } else if (v->type == J_STR) {
        char tmp[8];
        /* A NUL decoded from \u0000 would end the C string early ("D13\u0000xyz" as D13). */
        if (v->slen < sizeof tmp && !memchr(v->s, 0, v->slen)) {
            memcpy(tmp, v->s, v->slen);
            tmp[v->slen] = 0;
            p = board_find_name(tmp);
        }
        if (!p) {
            reply_error(r, E_BAD_PIN, "unknown pin; use D2-D15, A0-A5, LD2, B1 or a chip name like PA5: ", v->s,
                        v->slen);
            return 0;
        }
    } else {
        reply_error(r, E_BAD_ARG, "pin must be a number or a name: ", name, strlen(name));
        return 0;
    }
    if (p->reserved) {
        reply_error(r, E_RESERVED, "pin is the bridge's own serial link (USART2) and cannot be used: ", p->name,
                    strlen(p->name));
        return 0;
    }
    return p;
}

/* Refuse to drive an input-only pin; 0 if p may be an output. */
static int refuse_output(const struct req *r, const struct pin_def *p) {
    if (!p->input_only) return 0;
    reply_error(r, E_BAD_PIN,
                "pin is input-only (user button on PC13: it cannot source current and pressing the button "
                "shorts a driven pin): ",
                p->name, strlen(p->name));
    return -1;
}

static int choice_arg(const struct req *r, const char *name, const char *const *choices, int dflt) {
    const struct jval *v = arg(r, name);
    if (!v) return dflt;
    if (v->type == J_STR) {
        for (int i = 0; choices[i]; i++) {
            if (key_is(v->s, v->slen, choices[i])) return i;
        }
    }
    reply_error(r, E_BAD_ARG, "argument has an unknown value: ", name, strlen(name));
    return -1;
}

/* ---- commands ---------------------------------------------------------------------------------------- */

static const char *const CMD_NAMES =
    "[\"ping\",\"capabilities\",\"hello\",\"gpio_read\",\"gpio_write\",\"gpio_mode\",\"adc_read\","
    "\"i2c_scan\",\"i2c_read\",\"i2c_write\",\"i2c_write_read\",\"spi_transfer\"]";

static void cmd_ping(const struct req *r) { reply_ok_str(r, "pong"); }

static void cmd_hello(const struct req *r) {
    begin_ok(r);
    w_str("{\"protocol\":");
    w_long(PROTO_VERSION);
    w_str(",\"board\":\"" BOARD_ID "\",\"mcu\":\"" BOARD_MCU "\",\"firmware\":\"" FW_VERSION "\",\"max_line\":");
    w_long(PROTO_MAX_LINE);
    w_str(",\"max_data\":");
    w_long(PROTO_MAX_DATA);
    w_str(",\"cmds\":");
    w_str(CMD_NAMES);
    w_char('}');
    flush_reply();
}

/* The reference protocol's capabilities result is a string holding JSON; keep that shape and
 * extend the object it holds. */
static void cmd_capabilities(const struct req *r) {
    char inner[640];
    size_t n = 0;
#define PUT(s)                                                                                                 \
    do {                                                                                                       \
        size_t l_ = strlen(s);                                                                                 \
        if (n + l_ < sizeof inner) {                                                                           \
            memcpy(inner + n, s, l_);                                                                          \
            n += l_;                                                                                           \
        }                                                                                                      \
    } while (0)
    PUT("{\"protocol\":1,\"board\":\"" BOARD_ID "\",\"firmware\":\"" FW_VERSION "\",\"gpio\":[");
    int first = 1;
    for (unsigned i = 0; i < board_pin_count; i++) {
        if (board_pins[i].dnum < 0 || board_pins[i].reserved) continue;
        char num[4] = {0};
        int d = board_pins[i].dnum;
        if (d >= 10) {
            num[0] = (char)('0' + d / 10);
            num[1] = (char)('0' + d % 10);
        } else {
            num[0] = (char)('0' + d);
        }
        if (!first) PUT(",");
        PUT(num);
        first = 0;
    }
    PUT("],\"led_pin\":13,\"reserved\":[0,1],\"analog\":[\"A0\",\"A1\",\"A2\",\"A3\",\"A4\",\"A5\"],"
        "\"button\":\"B1\",\"i2c\":{\"scl\":\"D15\",\"sda\":\"D14\",\"hz\":100000},"
        "\"spi\":{\"sck\":\"D13\",\"miso\":\"D12\",\"mosi\":\"D11\",\"cs\":\"D10\"},\"cmds\":");
    PUT(CMD_NAMES);
    PUT("}");
#undef PUT
    begin_ok(r);
    w_json_str(inner, n);
    flush_reply();
}

static const char *const PULLS[] = {"none", "up", "down", 0};
static const char *const MODES[] = {"in", "out", 0};

static void cmd_gpio_read(const struct req *r) {
    const struct pin_def *p = pin_arg(r, "pin", 1);
    if (!p) return;
    enum pin_owner o = board_owner(p);
    /* An unclaimed or analog pin becomes a floating input first; a pin driven by GPIO, I2C or
     * SPI is read as it is (an output reads back its actual pad level). */
    if (o == OWN_NONE || o == OWN_ANALOG) board_claim_gpio(p, HAL_MODE_IN, HAL_PULL_NONE);
    reply_ok_str(r, hal_pin_read(p->port, p->pin) ? "1" : "0");
}

static void cmd_gpio_write(const struct req *r) {
    const struct pin_def *p = pin_arg(r, "pin", 1);
    long value = 0;
    if (!p || refuse_output(r, p) || int_arg(r, "value", 0, 1, 1, &value)) return;
    /* Set the output latch before switching the mode so the pad never glitches. */
    hal_pin_write(p->port, p->pin, (int)value);
    if (board_owner(p) != OWN_GPIO || board_gpio_mode(p) != HAL_MODE_OUT) board_claim_gpio(p, HAL_MODE_OUT, HAL_PULL_NONE);
    reply_ok_str(r, "done");
}

static void cmd_gpio_mode(const struct req *r) {
    const struct pin_def *p = pin_arg(r, "pin", 1);
    if (!p) return;
    if (!arg(r, "mode")) {
        reply_error(r, E_MISSING_ARG, "missing argument ", "mode", 4);
        return;
    }
    int mode = choice_arg(r, "mode", MODES, 0);
    if (mode < 0) return;
    int pull = choice_arg(r, "pull", PULLS, 0);
    if (pull < 0) return;
    if (mode == 1 && refuse_output(r, p)) return;
    board_claim_gpio(p, mode == 1 ? HAL_MODE_OUT : HAL_MODE_IN, (uint8_t)pull);
    reply_ok_str(r, "done");
}

static void cmd_adc_read(const struct req *r) {
    const struct pin_def *p = pin_arg(r, "pin", 1);
    if (!p) return;
    if (p->adc < 0) {
        reply_error(r, E_BAD_PIN, "pin has no ADC channel; use A0-A5: ", p->name, strlen(p->name));
        return;
    }
    board_claim_analog(p);
    uint16_t value = 0;
    int st = hal_adc_read((uint8_t)p->adc, &value);
    if (st) {
        reply_error(r, st, "ADC conversion did not complete", 0, 0);
        return;
    }
    begin_ok(r);
    w_long(value);
    flush_reply();
}

static void bus_error(const struct req *r, int st, long addr) {
    char a[5] = {'0', 'x', HEX[(addr >> 4) & 7], HEX[addr & 15], 0};
    if (st == HAL_ERR_NACK) {
        reply_error(r, E_NACK, "no ACK from I2C target ", a, 4);
    } else if (st == HAL_ERR_BUSY) {
        reply_error(r, E_BUSY, "I2C bus is held busy (SDA or SCL stuck low); check wiring and pull-ups", 0, 0);
    } else {
        reply_error(r, E_TIMEOUT, "I2C transfer timed out; check pull-ups on D14/D15", 0, 0);
    }
}

static void cmd_i2c_scan(const struct req *r) {
    uint8_t found[0x78];
    size_t n = 0;
    board_claim_i2c();
    /* 0x00-0x07 and 0x78-0x7F are reserved addresses (I2C-bus specification, UM10204 3.1.12). */
    for (uint8_t a = 0x08; a < 0x78; a++) {
        /* Probe like i2cdetect: a one-byte read where a bare address write could latch something
         * (0x30-0x37, and 0x50-0x5F where an AT24RF08 takes it as a write-protect command),
         * an address-only write elsewhere (reads can clear status or FIFO registers). */
        uint8_t dummy;
        int use_read = (a >= 0x30 && a <= 0x37) || (a >= 0x50 && a <= 0x5F);
        int st = use_read ? hal_i2c_transfer(a, 0, 0, &dummy, 1) : hal_i2c_transfer(a, 0, 0, 0, 0);
        if (st == HAL_OK) {
            found[n++] = a;
        } else if (st != HAL_ERR_NACK) {
            bus_error(r, st, a);
            return;
        }
    }
    begin_ok(r);
    w_char('[');
    for (size_t i = 0; i < n; i++) {
        if (i) w_char(',');
        w_long(found[i]);
    }
    w_char(']');
    flush_reply();
}

static void i2c_common(const struct req *r, int do_write, int do_read) {
    long addr = 0, len = 0;
    uint8_t wbuf[PROTO_MAX_DATA], rbuf[PROTO_MAX_DATA];
    size_t wn = 0;
    if (int_arg(r, "addr", 0, 0x7F, 1, &addr)) return;
    if (do_write && hex_arg(r, "data", do_read ? 1 : 0, wbuf, &wn)) return;
    if (do_read && int_arg(r, "len", 1, PROTO_MAX_DATA, 1, &len)) return;
    board_claim_i2c();
    int st = hal_i2c_transfer((uint8_t)addr, wbuf, wn, rbuf, (size_t)len);
    if (st) {
        bus_error(r, st, addr);
        return;
    }
    if (!do_read) {
        reply_ok_str(r, "done");
        return;
    }
    begin_ok(r);
    w_hex(rbuf, (size_t)len);
    flush_reply();
}

static void cmd_i2c_read(const struct req *r) { i2c_common(r, 0, 1); }
static void cmd_i2c_write(const struct req *r) { i2c_common(r, 1, 0); }
static void cmd_i2c_write_read(const struct req *r) { i2c_common(r, 1, 1); }

static void cmd_spi_transfer(const struct req *r) {
    uint8_t buf[PROTO_MAX_DATA];
    size_t n = 0;
    long mode = 0, hz = 1000000;
    const struct pin_def *cs = board_find_number(10);
    if (hex_arg(r, "data", 1, buf, &n)) return;
    if (int_arg(r, "mode", 0, 3, 0, &mode)) return;
    if (int_arg(r, "hz", 1000, 8000000, 0, &hz)) return;
    const struct jval *csv = arg(r, "cs");
    if (csv && csv->type == J_NULL) {
        cs = 0; /* the caller drives chip select itself */
    } else if (csv) {
        cs = pin_arg(r, "cs", 1);
        if (!cs || refuse_output(r, cs)) return;
    }
    if (cs && (cs->dnum == 11 || cs->dnum == 12 || cs->dnum == 13)) {
        reply_error(r, E_BAD_ARG, "chip select cannot be an SPI1 pin: ", cs->name, strlen(cs->name));
        return;
    }
    if (cs) {
        /* Chip select is active low: park it high before the bus pins switch over. */
        hal_pin_write(cs->port, cs->pin, 1);
        if (board_owner(cs) != OWN_GPIO || board_gpio_mode(cs) != HAL_MODE_OUT) board_claim_gpio(cs, HAL_MODE_OUT, HAL_PULL_NONE);
    }
    board_claim_spi((uint8_t)mode, (uint32_t)hz);
    if (cs) hal_pin_write(cs->port, cs->pin, 0);
    int st = hal_spi_transfer(buf, n);
    if (cs) hal_pin_write(cs->port, cs->pin, 1);
    if (st) {
        reply_error(r, E_TIMEOUT, "SPI transfer timed out", 0, 0);
        return;
    }
    begin_ok(r);
    w_hex(buf, n);
    flush_reply();
}

struct command {
    const char *name;
    void (*fn)(const struct req *);
    const char *args[5]; /* accepted argument names */
};

static const struct command COMMANDS[] = {
    {"ping", cmd_ping, {0}},
    {"capabilities", cmd_capabilities, {0}},
    {"hello", cmd_hello, {0}},
    {"gpio_read", cmd_gpio_read, {"pin", 0}},
    {"gpio_write", cmd_gpio_write, {"pin", "value", 0}},
    {"gpio_mode", cmd_gpio_mode, {"pin", "mode", "pull", 0}},
    {"adc_read", cmd_adc_read, {"pin", 0}},
    {"i2c_scan", cmd_i2c_scan, {0}},
    {"i2c_read", cmd_i2c_read, {"addr", "len", 0}},
    {"i2c_write", cmd_i2c_write, {"addr", "data", 0}},
    {"i2c_write_read", cmd_i2c_write_read, {"addr", "data", "len", 0}},
    {"spi_transfer", cmd_spi_transfer, {"data", "mode", "hz", "cs", 0}},
};

/* ---- line handling -------------------------------------------------------------------------------- */

void proto_handle_line(const char *line, size_t len) {
    static char pool[PROTO_MAX_LINE];
    static struct req r;
    struct scan s = {line, line + len, pool, 0, sizeof pool};

    memset(&r, 0, sizeof r);
    if (parse_request(&s, &r)) {
        reply_error(&r, E_MALFORMED, "malformed request: expected one JSON object with id, cmd and args", 0, 0);
        return;
    }
    if (r.id_bad || !r.id_kind) {
        reply_error(&r, E_BAD_ID, "request needs an id: a string of 1-24 characters or a non-negative integer", 0, 0);
        return;
    }
    if (r.dup) {
        reply_error(&r, E_MALFORMED, "malformed request: duplicate key, or args is not an object", 0, 0);
        return;
    }
    if (!r.have_cmd || !r.cmd) {
        reply_error(&r, E_MALFORMED, "malformed request: cmd must be a string", 0, 0);
        return;
    }
    const struct command *c = 0;
    for (unsigned i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++) {
        if (key_is(r.cmd, r.cmdlen, COMMANDS[i].name)) c = &COMMANDS[i];
    }
    if (!c) {
        reply_error(&r, E_UNKNOWN_CMD, "Unknown command: ", r.cmd, r.cmdlen);
        return;
    }
    if (r.too_many_args) {
        reply_error(&r, E_BAD_ARG, "too many arguments", 0, 0);
        return;
    }
    for (int i = 0; i < r.nargs; i++) {
        int known = 0;
        for (int k = 0; c->args[k]; k++) known |= key_is(r.args[i].key, r.args[i].klen, c->args[k]);
        if (!known) {
            reply_error(&r, E_BAD_ARG, "unknown argument ", r.args[i].key, r.args[i].klen);
            return;
        }
        if (r.args[i].v.type == J_NESTED || r.args[i].v.type == J_NUM) {
            reply_error(&r, E_BAD_ARG, "argument must be an integer, string, boolean or null: ", r.args[i].key,
                        r.args[i].klen);
            return;
        }
    }
    c->fn(&r);
}

void proto_rx_byte(struct proto_rx *rx, uint8_t c) {
    if (c == '\n' || c == '\r') {
        if (rx->overflow) {
            /* The whole overlong line was dropped; answer it once, then start afresh. */
            reply_error(0, E_TOO_LONG, "line too long: requests are at most 512 bytes", 0, 0);
        } else if (rx->len) {
            proto_handle_line(rx->buf, rx->len);
        }
        rx->len = 0;
        rx->overflow = 0;
        /* One line served: the firmware is alive. The idle loop alone is not enough: a host that
         * pipelines requests keeps the receive ring from ever emptying while replies are sent. */
        hal_watchdog_feed();
        return;
    }
    if (rx->overflow) return;
    if (rx->len == sizeof rx->buf) {
        rx->overflow = 1;
        return;
    }
    rx->buf[rx->len++] = (char)c;
}

void proto_boot(struct proto_rx *rx) {
    rx->len = 0;
    rx->overflow = 0;
    board_reset_state();
    olen = 0;
    w_str("{\"event\":\"boot\",\"protocol\":");
    w_long(PROTO_VERSION);
    w_str(",\"board\":\"" BOARD_ID "\",\"firmware\":\"" FW_VERSION "\",\"reset\":");
    const char *why = hal_reset_reason();
    w_json_str(why, strlen(why));
    flush_reply();
}
