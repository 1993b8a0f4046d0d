/* Simulated NUCLEO-F401RE for the host build of the firmware core.
 *
 * It models just enough of the outside world for the host-driver tests to assert real
 * behaviour, and no more:
 *   - pads: an output reads back its latch; an input reads its pull (floating reads 0);
 *     D7 and D8 are jumpered together (an input on one reads the other when it drives);
 *     B1 has the board's external pull-up, so it reads 1 (not pressed).
 *   - ADC: A0..A5 sit on a resistor ladder reading 585, 1170, 1755, 2340, 2925, 3510 counts.
 *   - I2C1: a 24C02 EEPROM at 0x50 (256 bytes, word address byte, page writes of 8 bytes that wrap
 *     inside their page, sequential reads) and a BME280 at 0x76 (chip id 0x60, the datasheet's
 *     example trimming values, register/value pair writes, soft reset; a forced or normal-mode
 *     ctrl_meas write latches raw readings for 22.5 C, 1009.25 hPa, 45 %RH). Other addresses NACK.
 *   - SPI1: MOSI jumpered to MISO, so a transfer returns what it sent.
 * Serial: stdin/stdout (the test harness connects them to a pty or pipes). With BRIDGE_SIM_BAUD set
 * (e.g. 115200), both directions are paced like a UART at that rate, 10 bits per byte: replies
 * leave no sooner than the wire allows (and block, as the MCU's polled TX does), and received
 * bytes are processed no sooner than they could have arrived. With BRIDGE_SIM_NOISE=1 every reply
 * is preceded by one line of noise (binary junk, a reply with an unknown id, an overlong line,
 * an unknown event, in turn), as a flaky cable or a chatty bootloader would produce.
 * Watchdog: with BRIDGE_SIM_WATCHDOG_MS set (2000 is the board's IWDG: LSI / 64, reload 1000), a
 * model of the MCU's independent watchdog on the monotonic clock. Not fed in time, the process does
 * what the board does: drops its buffered input, resets pin state and sends the boot banner with
 * "reset":"watchdog". As on the MCU, the idle loop feeds it whenever the receive ring is empty;
 * with BRIDGE_SIM_BAUD set, the ring is empty when the next byte has not yet arrived on the
 * emulated wire, so a host that keeps the line busy starves the idle loop as it would on the board.
 * Off by default: a process stopped by a debugger or SIGSTOP should not come back reset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/hal.h"

struct pad {
    uint8_t mode, pull, latch;
};
static struct pad pads[3][16];
static uint8_t eeprom[256], bme[256];
static uint8_t eeprom_ptr, bme_ptr;

/* BME280 NVM trimming at 0x88..0xA1 and 0xE1..0xE7: the example calibration of the BME280
 * datasheet (dig_T1 = 27504, dig_T2 = 26435, dig_T3 = -1000, dig_P1 = 36477, ...; dig_H1 = 75). */
static const uint8_t BME_TRIM_TP[26] = {0x70, 0x6b, 0x43, 0x67, 0x18, 0xfc, 0x7d, 0x8e, 0x43, 0xd6, 0xd0, 0x0b, 0x27,
                                        0x0b, 0x8c, 0x00, 0xf9, 0xff, 0x8c, 0x3c, 0xf8, 0xc6, 0x70, 0x17, 0x00, 0x4b};
static const uint8_t BME_TRIM_H[7] = {0x6a, 0x01, 0x00, 0x13, 0x29, 0x03, 0x1e};
/* Raw press/temp/hum words (0xF7..0xFE) that compensate to 22.5 C, 1009.25 hPa, 45 %RH. */
static const uint8_t BME_SAMPLE[8] = {0x64, 0x67, 0x60, 0x7c, 0xe9, 0x80, 0x6e, 0x33};
static const uint8_t BME_DATA_RESET[8] = {0x80, 0x00, 0x00, 0x80, 0x00, 0x00, 0x80, 0x00};

static void bme_reset(void) {
    memset(bme, 0, sizeof bme);
    memcpy(&bme[0x88], BME_TRIM_TP, sizeof BME_TRIM_TP);
    memcpy(&bme[0xE1], BME_TRIM_H, sizeof BME_TRIM_H);
    bme[0xD0] = 0x60; /* chip id (datasheet 5.4.1) */
    memcpy(&bme[0xF7], BME_DATA_RESET, sizeof BME_DATA_RESET);
}

static void bme_store(uint8_t reg, uint8_t value) {
    if (reg == 0xE0) {
        if (value == 0xB6) bme_reset(); /* soft reset word */
    } else if (reg == 0xF2) {
        bme[reg] = value & 0x07;
    } else if (reg == 0xF4) {
        uint8_t mode = value & 0x03;
        if (mode != 0) memcpy(&bme[0xF7], BME_SAMPLE, sizeof BME_SAMPLE);
        bme[reg] = mode == 1 || mode == 2 ? (uint8_t)(value & ~0x03u) : value; /* forced: back to sleep */
    } else if (reg == 0xF5) {
        bme[reg] = value & 0xFD;
    }
    /* trimming, id, status and data registers are read-only */
}

const char *sim_reset_reason = "power";

static double byte_s; /* seconds per byte on the emulated wire; 0 = unpaced */
static int noise;     /* BRIDGE_SIM_NOISE: emit a noise line before each reply */
static unsigned noise_turn;
static double tx_clock, rx_clock;
static double wdg_period_s, wdg_deadline; /* 0: no watchdog model */
static int wdg_fired;

double sim_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t) {
    for (double d = t - sim_now(); d > 0; d = t - sim_now()) {
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        nanosleep(&ts, 0);
    }
}

/* The core's per-line feed. The model only looks at the clock at feeds and between bytes, so a
 * feed that comes after the deadline is too late: the board would have reset while busy. */
void hal_watchdog_feed(void) {
    double now = sim_now();
    if (wdg_period_s <= 0) return;
    if (now > wdg_deadline) wdg_fired = 1;
    else wdg_deadline = now + wdg_period_s;
}

/* The idle loop's feed: on the board it runs every 100 ms while the ring stays empty. */
void sim_watchdog_idle(void) {
    if (!wdg_fired) wdg_deadline = sim_now() + wdg_period_s;
}

int sim_watchdog_expired(void) { return wdg_period_s > 0 && (wdg_fired || sim_now() > wdg_deadline); }

/* Called before the core takes the next received byte. `first` marks the first byte of a read()
 * and `blocked` whether that read had to wait. Paced, the byte is taken no sooner than it could
 * have arrived at the emulated baud rate. Returns 1 when the receive ring was empty before this
 * byte (the MCU would have been in its idle loop), 0 when the byte was already waiting. */
int sim_rx_next(int first, int blocked) {
    if (byte_s <= 0) return first && blocked;
    double now = sim_now();
    double arrival = rx_clock + byte_s;
    if (first && blocked && now > rx_clock) arrival = now; /* the line was idle: the byte just arrived */
    rx_clock = arrival;
    if (arrival <= now) return 0;
    sleep_until(arrival);
    return 1;
}

void hal_init(void) {
    const char *baud = getenv("BRIDGE_SIM_BAUD");
    const char *nz = getenv("BRIDGE_SIM_NOISE");
    noise = nz && *nz && *nz != '0';
    byte_s = baud && atof(baud) > 0 ? 10.0 / atof(baud) : 0;
    const char *wdg = getenv("BRIDGE_SIM_WATCHDOG_MS");
    wdg_period_s = wdg && atof(wdg) > 0 ? atof(wdg) / 1000.0 : 0;
    rx_clock = sim_now();
    wdg_fired = 0;
    wdg_deadline = rx_clock + wdg_period_s; /* the IWDG starts with a full reload in hal_init */
    memset(pads, 0, sizeof pads);
    memset(eeprom, 0, sizeof eeprom);
    bme_reset();
    eeprom_ptr = bme_ptr = 0;
}

static void raw_write(const char *s, size_t n);

static void write_noise(void) {
    static const char junk[] = "\xff\x00\xfe garbage \x1b[0m\n";
    static const char stray[] = "{\"id\":\"stray-7\",\"ok\":true,\"result\":\"not yours\"}\n";
    static const char event[] = "{\"event\":\"debug\",\"text\":\"hello from the noise\"}\n";
    char longline[1500];
    switch (noise_turn++ % 4) {
    case 0: raw_write(junk, sizeof junk - 1); break;
    case 1: raw_write(stray, sizeof stray - 1); break;
    case 2:
        memset(longline, 'x', sizeof longline - 1);
        longline[sizeof longline - 1] = '\n';
        raw_write(longline, sizeof longline);
        break;
    default: raw_write(event, sizeof event - 1); break;
    }
}

void hal_write(const char *s, size_t n) {
    if (noise && n && s[0] == '{' && strncmp(s, "{\"event\"", 8) != 0) write_noise();
    raw_write(s, n);
}

static void raw_write(const char *s, size_t n) {
    if (byte_s > 0) {
        double now = sim_now();
        tx_clock = (tx_clock > now ? tx_clock : now) + (double)n * byte_s;
        sleep_until(tx_clock);
    }
    while (n) {
        ssize_t k = write(1, s, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            exit(0); /* the other end went away: a real board would be unplugged */
        }
        s += k;
        n -= (size_t)k;
    }
}

const char *hal_reset_reason(void) { return sim_reset_reason; }

void hal_pin_mode(uint8_t port, uint8_t pin, uint8_t mode, uint8_t pull, uint8_t af, uint8_t open_drain) {
    (void)af;
    (void)open_drain;
    pads[port][pin].mode = mode;
    pads[port][pin].pull = pull;
}

void hal_pin_write(uint8_t port, uint8_t pin, int level) { pads[port][pin].latch = (uint8_t)(level != 0); }

int hal_pin_read(uint8_t port, uint8_t pin) {
    struct pad *p = &pads[port][pin];
    if (p->mode == HAL_MODE_OUT) return p->latch;
    if (p->mode == HAL_MODE_ANALOG) return 0;
    if (port == HAL_PORT_C && pin == 13) return 1; /* B1: external pull-up, not pressed */
    /* D7 = PA8 and D8 = PA9 are jumpered. */
    if (port == HAL_PORT_A && (pin == 8 || pin == 9)) {
        struct pad *o = &pads[HAL_PORT_A][pin == 8 ? 9 : 8];
        if (o->mode == HAL_MODE_OUT) return o->latch;
    }
    return p->pull == HAL_PULL_UP;
}

int hal_adc_read(uint8_t channel, uint16_t *value) {
    static const uint8_t ladder_channel[] = {0, 1, 4, 8, 11, 10}; /* A0..A5 */
    *value = 0;
    for (unsigned i = 0; i < sizeof ladder_channel; i++) {
        if (ladder_channel[i] == channel) *value = (uint16_t)(585 * (i + 1));
    }
    return HAL_OK;
}

void hal_i2c_enable(void) {}

int hal_i2c_transfer(uint8_t addr, const uint8_t *w, size_t wn, uint8_t *r, size_t rn) {
    if (addr == 0x50) {
        if (wn) {
            eeprom_ptr = w[0];
            /* 24C02 page write: the low 3 address bits count, the page stays put. */
            uint8_t a = eeprom_ptr;
            for (size_t i = 1; i < wn; i++) {
                eeprom[a] = w[i];
                a = (uint8_t)((a & ~7u) | ((a + 1u) & 7u));
            }
        }
        for (size_t i = 0; i < rn; i++) r[i] = eeprom[eeprom_ptr++];
        return HAL_OK;
    }
    if (addr == 0x76) {
        if (wn) {
            bme_ptr = w[0];
            /* Writes are (register, value) pairs (datasheet 6.2.1); an odd last byte only sets the
             * read pointer. */
            for (size_t i = 0; i + 1 < wn; i += 2) bme_store(w[i], w[i + 1]);
        }
        for (size_t i = 0; i < rn; i++) r[i] = bme[bme_ptr++];
        return HAL_OK;
    }
    return HAL_ERR_NACK;
}

void hal_spi_enable(uint8_t mode, uint32_t hz) {
    (void)mode;
    (void)hz;
}

int hal_spi_transfer(uint8_t *buf, size_t n) {
    (void)buf; /* MOSI -> MISO loopback: every byte comes back unchanged */
    (void)n;
    return HAL_OK;
}
