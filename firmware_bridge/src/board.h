/* Pin map of the NUCLEO-F401RE Arduino header, LD2 and B1 (UM1724, "ARDUINO connectors"). */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

#define BOARD_ID "nucleo-f401re"
#define BOARD_MCU "STM32F401RE"

/* Who currently owns a pin's mux: the core switches on demand ("last use wins"). */
enum pin_owner { OWN_NONE = 0, OWN_GPIO, OWN_ANALOG, OWN_I2C, OWN_SPI, OWN_LINK };

struct pin_def {
    const char *name;    /* header name: D0..D15, A0..A5, LD2, B1 */
    const char *chip;    /* STM32 name: PA5 */
    int8_t dnum;         /* Arduino D number (Revka's protocol-0 integer pin), or -1 */
    uint8_t port, pin;   /* HAL_PORT_x, 0..15 */
    int8_t adc;          /* ADC1 channel, or -1 */
    uint8_t reserved;    /* 1: the bridge's own link (USART2), never driven */
    uint8_t input_only;  /* 1: never an output (B1: PC13 may not source current; the button shorts it) */
};

extern const struct pin_def board_pins[];
extern const unsigned board_pin_count;

/* Find a pin by header name, chip name, alias (LED, BUTTON) or Arduino number; NULL if none. */
const struct pin_def *board_find_name(const char *name);
const struct pin_def *board_find_number(long n);

/* Claim a pin for a role, re-muxing it; releases I2C1/SPI1 as a whole if one of their pins is
 * taken back, so the next bus command re-claims all of its pins. */
void board_claim_gpio(const struct pin_def *p, uint8_t mode, uint8_t pull);
void board_claim_analog(const struct pin_def *p);
void board_claim_i2c(void);
void board_claim_spi(uint8_t mode, uint32_t hz);
void board_reset_state(void);
enum pin_owner board_owner(const struct pin_def *p);
/* HAL_MODE_IN or HAL_MODE_OUT as last set through board_claim_gpio. */
uint8_t board_gpio_mode(const struct pin_def *p);

#endif
