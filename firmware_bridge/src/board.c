/* NUCLEO-F401RE pin table and pin-ownership bookkeeping (portable: no registers here). */
#include "board.h"

#include <string.h>

#include "hal.h"

/* Solder bridges in their factory state: D0/D1 (PA3/PA2) are USART2, which the ST-LINK virtual
 * COM port uses; SB62/SB63 are open so the header pins are not even connected. They stay listed
 * so a request naming them gets "reserved" rather than "unknown pin". A4/A5 are PC1/PC0 (SB46,
 * SB56 closed by default), not the I2C pins. B1 is PC13, in the backup domain: the datasheet limits
 * it to 2 MHz and forbids it as a current source, and pressing the button while it drives high
 * shorts the pin to ground, so it is an input only. */
const struct pin_def board_pins[] = {
    {"D0", "PA3", 0, HAL_PORT_A, 3, -1, 1, 0},
    {"D1", "PA2", 1, HAL_PORT_A, 2, -1, 1, 0},
    {"D2", "PA10", 2, HAL_PORT_A, 10, -1, 0, 0},
    {"D3", "PB3", 3, HAL_PORT_B, 3, -1, 0, 0},
    {"D4", "PB5", 4, HAL_PORT_B, 5, -1, 0, 0},
    {"D5", "PB4", 5, HAL_PORT_B, 4, -1, 0, 0},
    {"D6", "PB10", 6, HAL_PORT_B, 10, -1, 0, 0},
    {"D7", "PA8", 7, HAL_PORT_A, 8, -1, 0, 0},
    {"D8", "PA9", 8, HAL_PORT_A, 9, -1, 0, 0},
    {"D9", "PC7", 9, HAL_PORT_C, 7, -1, 0, 0},
    {"D10", "PB6", 10, HAL_PORT_B, 6, -1, 0, 0},
    {"D11", "PA7", 11, HAL_PORT_A, 7, 7, 0, 0},
    {"D12", "PA6", 12, HAL_PORT_A, 6, 6, 0, 0},
    {"D13", "PA5", 13, HAL_PORT_A, 5, 5, 0, 0},
    {"D14", "PB9", 14, HAL_PORT_B, 9, -1, 0, 0},
    {"D15", "PB8", 15, HAL_PORT_B, 8, -1, 0, 0},
    {"A0", "PA0", -1, HAL_PORT_A, 0, 0, 0, 0},
    {"A1", "PA1", -1, HAL_PORT_A, 1, 1, 0, 0},
    {"A2", "PA4", -1, HAL_PORT_A, 4, 4, 0, 0},
    {"A3", "PB0", -1, HAL_PORT_B, 0, 8, 0, 0},
    {"A4", "PC1", -1, HAL_PORT_C, 1, 11, 0, 0},
    {"A5", "PC0", -1, HAL_PORT_C, 0, 10, 0, 0},
    {"B1", "PC13", -1, HAL_PORT_C, 13, -1, 0, 1},
};
const unsigned board_pin_count = sizeof board_pins / sizeof board_pins[0];

static uint8_t owner[sizeof board_pins / sizeof board_pins[0]];
static uint8_t gmode[sizeof board_pins / sizeof board_pins[0]];

/* I2C1 on the Arduino SCL/SDA pins: PB8 = D15 (SCL), PB9 = D14 (SDA), alternate function 4.
 * SPI1: PA5 = D13 (SCK, also LD2), PA6 = D12 (MISO), PA7 = D11 (MOSI), alternate function 5. */
#define I2C_AF 4
#define SPI_AF 5
static const uint8_t i2c_pins[] = {14, 15};
static const uint8_t spi_pins[] = {13, 12, 11};
static uint8_t spi_mode_now = 0xFF;
static uint32_t spi_hz_now;

static int index_of(const struct pin_def *p) { return (int)(p - board_pins); }

static int ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        char x = *a, y = *b;
        if (x >= 'a' && x <= 'z') x = (char)(x - 32);
        if (y >= 'a' && y <= 'z') y = (char)(y - 32);
        if (x != y) return 0;
    }
    return *a == *b;
}

const struct pin_def *board_find_name(const char *name) {
    if (ieq(name, "LED") || ieq(name, "LD2")) return board_find_number(13);
    if (ieq(name, "BUTTON") || ieq(name, "USER")) name = "B1";
    for (unsigned i = 0; i < board_pin_count; i++) {
        if (ieq(name, board_pins[i].name) || ieq(name, board_pins[i].chip)) return &board_pins[i];
    }
    return 0;
}

const struct pin_def *board_find_number(long n) {
    for (unsigned i = 0; i < board_pin_count; i++) {
        if (board_pins[i].dnum >= 0 && board_pins[i].dnum == n) return &board_pins[i];
    }
    return 0;
}

enum pin_owner board_owner(const struct pin_def *p) { return (enum pin_owner)owner[index_of(p)]; }

uint8_t board_gpio_mode(const struct pin_def *p) { return gmode[index_of(p)]; }

static void release_bus_of(int idx) {
    /* Taking one pin of a bus back for GPIO/ADC breaks the bus; forget the whole claim. */
    if (owner[idx] == OWN_I2C) {
        for (unsigned j = 0; j < sizeof i2c_pins; j++) owner[i2c_pins[j]] = OWN_NONE;
    } else if (owner[idx] == OWN_SPI) {
        for (unsigned j = 0; j < sizeof spi_pins; j++) owner[spi_pins[j]] = OWN_NONE;
        spi_mode_now = 0xFF;
    }
}

void board_claim_gpio(const struct pin_def *p, uint8_t mode, uint8_t pull) {
    int idx = index_of(p);
    release_bus_of(idx);
    owner[idx] = OWN_GPIO;
    gmode[idx] = mode;
    hal_pin_mode(p->port, p->pin, mode, pull, 0, 0);
}

void board_claim_analog(const struct pin_def *p) {
    int idx = index_of(p);
    release_bus_of(idx);
    if (owner[idx] != OWN_ANALOG) hal_pin_mode(p->port, p->pin, HAL_MODE_ANALOG, HAL_PULL_NONE, 0, 0);
    owner[idx] = OWN_ANALOG;
}

void board_claim_i2c(void) {
    if (owner[i2c_pins[0]] == OWN_I2C && owner[i2c_pins[1]] == OWN_I2C) return;
    for (unsigned j = 0; j < sizeof i2c_pins; j++) {
        const struct pin_def *p = &board_pins[i2c_pins[j]];
        /* Open drain with the weak internal pull-ups as a fallback; breakouts bring 4.7k ones. */
        hal_pin_mode(p->port, p->pin, HAL_MODE_AF, HAL_PULL_UP, I2C_AF, 1);
        owner[i2c_pins[j]] = OWN_I2C;
    }
    hal_i2c_enable();
}

void board_claim_spi(uint8_t mode, uint32_t hz) {
    int claimed = 1;
    for (unsigned j = 0; j < sizeof spi_pins; j++) claimed &= owner[spi_pins[j]] == OWN_SPI;
    if (!claimed) {
        for (unsigned j = 0; j < sizeof spi_pins; j++) {
            const struct pin_def *p = &board_pins[spi_pins[j]];
            hal_pin_mode(p->port, p->pin, HAL_MODE_AF, HAL_PULL_NONE, SPI_AF, 0);
            owner[spi_pins[j]] = OWN_SPI;
        }
    }
    if (!claimed || mode != spi_mode_now || hz != spi_hz_now) {
        hal_spi_enable(mode, hz);
        spi_mode_now = mode;
        spi_hz_now = hz;
    }
}

void board_reset_state(void) {
    memset(owner, 0, sizeof owner);
    spi_mode_now = 0xFF;
    owner[0] = OWN_LINK;
    owner[1] = OWN_LINK;
    /* LD2 starts as a low output so `gpio_write 13` behaves like Revka's protocol-0 firmware. */
    board_claim_gpio(board_find_number(13), HAL_MODE_OUT, HAL_PULL_NONE);
    hal_pin_write(HAL_PORT_A, 5, 0);
}
