/* Hardware-abstraction seam between the portable protocol core and one board.
 *
 * The core (proto.c, board.c) never touches a register: it calls these functions. The
 * NUCLEO-F401RE build implements them on STM32F401 registers (hal_stm32f401.c); the host
 * build implements them on a simulated board (host/hal_sim.c) so the same core can be
 * tested as a process on a pseudo-terminal.
 */
#ifndef HAL_H
#define HAL_H

#include <stddef.h>
#include <stdint.h>

/* Status codes returned by HAL calls; values are the protocol's error codes (PROTOCOL.md). */
enum {
    HAL_OK = 0,
    HAL_ERR_NACK = 9,
    HAL_ERR_TIMEOUT = 10,
    HAL_ERR_BUSY = 11,
    HAL_ERR_UNSUPPORTED = 12,
};

enum hal_port { HAL_PORT_A = 0, HAL_PORT_B = 1, HAL_PORT_C = 2 };
enum hal_mode { HAL_MODE_IN = 0, HAL_MODE_OUT = 1, HAL_MODE_AF = 2, HAL_MODE_ANALOG = 3 };
enum hal_pull { HAL_PULL_NONE = 0, HAL_PULL_UP = 1, HAL_PULL_DOWN = 2 };

/* Bring up clocks and the serial link. */
void hal_init(void);
/* Blocking write of n bytes to the host link. */
void hal_write(const char *s, size_t n);
/* Refresh the independent watchdog (about 2 s). The core calls it once per processed line; the
 * idle loop calls it while the receive ring is empty. */
void hal_watchdog_feed(void);
/* Why the MCU last reset: "power", "pin", "software", "watchdog", "brownout" or "other". */
const char *hal_reset_reason(void);

void hal_pin_mode(uint8_t port, uint8_t pin, uint8_t mode, uint8_t pull, uint8_t af, uint8_t open_drain);
void hal_pin_write(uint8_t port, uint8_t pin, int level);
int hal_pin_read(uint8_t port, uint8_t pin);

/* One 12-bit conversion of ADC1 channel `channel`. */
int hal_adc_read(uint8_t channel, uint16_t *value);

/* I2C1 controller at 100 kHz (pins already muxed by the core). A transfer writes `wn` bytes
 * (wn may be 0: an address-only probe) and, if rn > 0, reads rn bytes after a repeated start. */
void hal_i2c_enable(void);
int hal_i2c_transfer(uint8_t addr, const uint8_t *w, size_t wn, uint8_t *r, size_t rn);

/* SPI1 controller, full duplex, MSB first: buf is sent and replaced by what was received. */
void hal_spi_enable(uint8_t mode, uint32_t hz);
int hal_spi_transfer(uint8_t *buf, size_t n);

#endif
