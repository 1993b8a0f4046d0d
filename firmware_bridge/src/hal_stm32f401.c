/* HAL for the NUCLEO-F401RE on bare STM32F401 registers (see stm32f401.h). */
#include "hal.h"

#include "stm32f401.h"

static const uint32_t port_base[] = {PERIPH_GPIOA, PERIPH_GPIOB, PERIPH_GPIOC};

/* Busy-wait bounds. At 16 MHz one poll iteration is well under 1 us, so 20000 polls is more
 * than a 100 kHz I2C byte (90 us) with clock stretching margin, yet returns within tens of ms
 * when a target holds the bus. */
#define POLL_LIMIT 20000u

/* ---- serial link: USART2 on PA2 (TX) / PA3 (RX), AF7, wired to the ST-LINK virtual COM port */

#define RX_RING 1024u
static volatile uint8_t rx_ring[RX_RING];
static volatile uint32_t rx_head, rx_tail;
static volatile uint32_t rx_dropped;

void USART2_IRQHandler(void) {
    uint32_t sr = USART2_SR;
    if (sr & (USART_SR_RXNE | USART_SR_ORE)) {
        /* Reading DR clears RXNE and, after the SR read above, ORE. */
        uint8_t c = (uint8_t)USART2_DR;
        uint32_t next = (rx_head + 1u) % RX_RING;
        if (next != rx_tail) {
            rx_ring[rx_head] = c;
            rx_head = next;
        } else {
            rx_dropped++; /* host ignored the flow window; the line will fail to parse */
        }
    }
}

int hal_rx_pop(uint8_t *c) {
    if (rx_tail == rx_head) return 0;
    *c = rx_ring[rx_tail];
    rx_tail = (rx_tail + 1u) % RX_RING;
    return 1;
}

static void gpio_clock(void) {
    RCC_AHB1ENR |= RCC_AHB1ENR_GPIOAEN | RCC_AHB1ENR_GPIOBEN | RCC_AHB1ENR_GPIOCEN;
    (void)RCC_AHB1ENR; /* RM0368 6.3.10: allow the enable to take effect before the first access */
}

static const char *reset_reason = "other";

void hal_init(void) {
    uint32_t csr = RCC_CSR;
    /* Several flags can be set at once (a power-on also sets PINRSTF): most specific first. */
    if (csr & (RCC_CSR_IWDGRSTF | RCC_CSR_WWDGRSTF)) reset_reason = "watchdog";
    else if (csr & RCC_CSR_SFTRSTF) reset_reason = "software";
    else if (csr & RCC_CSR_PORRSTF) reset_reason = "power";
    else if (csr & RCC_CSR_BORRSTF) reset_reason = "brownout";
    else if (csr & RCC_CSR_PINRSTF) reset_reason = "pin";
    RCC_CSR |= RCC_CSR_RMVF;

    gpio_clock();
    RCC_APB1ENR |= RCC_APB1ENR_USART2EN;
    (void)RCC_APB1ENR;
    hal_pin_mode(HAL_PORT_A, 2, HAL_MODE_AF, HAL_PULL_NONE, 7, 0);
    hal_pin_mode(HAL_PORT_A, 3, HAL_MODE_AF, HAL_PULL_UP, 7, 0);
    /* Oversampling by 16: USARTDIV = 16 MHz / (16 * 115200) = 8.68 -> BRR 0x8B (0.08 % error). */
    USART2_BRR = (SYSCLK_HZ + 115200u / 2u) / 115200u;
    USART2_CR1 = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE | USART_CR1_RXNEIE;
    NVIC_ISER1 = 1u << (USART2_IRQN - 32u);

    /* Watchdog: LSI (~32 kHz) / 64 = 500 Hz, reload 1000 -> about 2 s. The main loop refreshes it;
     * a fault handler spinning forever (or a bus wait gone wrong) resets the board, and the host
     * sees a boot banner with reset "watchdog" instead of a silent link. */
    IWDG_KR = IWDG_KEY_START;
    IWDG_KR = IWDG_KEY_UNLOCK;
    IWDG_PR = 4u;
    IWDG_RLR = 1000u;
    IWDG_KR = IWDG_KEY_RELOAD;
    /* SysTick every 100 ms wakes the idle loop so the watchdog is refreshed with no traffic. */
    SYST_RVR = SYSCLK_HZ / 10u - 1u;
    SYST_CVR = 0;
    SYST_CSR = 7u; /* processor clock, interrupt, enable */
}

void SysTick_Handler(void) {}

void hal_watchdog_feed(void) { IWDG_KR = IWDG_KEY_RELOAD; }

void hal_idle(void) {
    hal_watchdog_feed();
    /* Check the ring with interrupts masked: a byte arriving between the check and WFI would
     * otherwise sit unprocessed until the next tick. WFI still wakes on the pending IRQ. */
    __asm volatile("cpsid i" ::: "memory");
    if (rx_tail == rx_head) __asm volatile("wfi");
    __asm volatile("cpsie i" ::: "memory");
}

void hal_write(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        while (!(USART2_SR & USART_SR_TXE)) {
        }
        USART2_DR = (uint8_t)s[i];
    }
}

const char *hal_reset_reason(void) { return reset_reason; }

/* ---- GPIO ------------------------------------------------------------------------------------------ */

void hal_pin_mode(uint8_t port, uint8_t pin, uint8_t mode, uint8_t pull, uint8_t af, uint8_t open_drain) {
    uint32_t b = port_base[port];
    uint32_t sh2 = 2u * pin;
    if (mode == HAL_MODE_AF) {
        volatile uint32_t *afr = pin < 8 ? &GPIO_AFRL(b) : &GPIO_AFRH(b);
        uint32_t sh4 = 4u * (pin & 7u);
        *afr = (*afr & ~(0xFu << sh4)) | ((uint32_t)af << sh4);
    }
    GPIO_OTYPER(b) = (GPIO_OTYPER(b) & ~(1u << pin)) | ((uint32_t)(open_drain != 0) << pin);
    /* MODER: 00 input, 01 output, 10 alternate function, 11 analog. */
    GPIO_PUPDR(b) = (GPIO_PUPDR(b) & ~(3u << sh2)) | ((uint32_t)pull << sh2);
    GPIO_OSPEEDR(b) = (GPIO_OSPEEDR(b) & ~(3u << sh2)) | (2u << sh2); /* fast: SPI up to 8 MHz */
    GPIO_MODER(b) = (GPIO_MODER(b) & ~(3u << sh2)) | ((uint32_t)mode << sh2);
}

void hal_pin_write(uint8_t port, uint8_t pin, int level) {
    /* BSRR sets (low half) or resets (high half) one pin atomically, no read-modify-write. */
    GPIO_BSRR(port_base[port]) = level ? (1u << pin) : (1u << (pin + 16u));
}

int hal_pin_read(uint8_t port, uint8_t pin) { return (int)((GPIO_IDR(port_base[port]) >> pin) & 1u); }

/* ---- ADC1 ------------------------------------------------------------------------------------------- */

int hal_adc_read(uint8_t channel, uint16_t *value) {
    if (!(RCC_APB2ENR & RCC_APB2ENR_ADC1EN)) {
        RCC_APB2ENR |= RCC_APB2ENR_ADC1EN;
        (void)RCC_APB2ENR;
        ADC_CCR = 0; /* ADCPRE = PCLK2 / 2 = 8 MHz, inside the 36 MHz maximum */
        /* 84-cycle sampling on every channel: tolerates source impedances of tens of kOhm. */
        ADC1_SMPR1 = 0x04924924u; /* channels 10..18: SMPx = 100b */
        ADC1_SMPR2 = 0x24924924u; /* channels 0..9 */
        ADC1_CR2 = ADC_CR2_ADON;
        for (volatile uint32_t i = 0; i < 100u; i++) { /* tSTAB (3 us) after ADON */
        }
    }
    ADC1_SQR1 = 0; /* one conversion in the regular sequence */
    ADC1_SQR3 = channel;
    ADC1_CR2 |= ADC_CR2_SWSTART;
    for (uint32_t n = 0; n < POLL_LIMIT; n++) {
        if (ADC1_SR & ADC_SR_EOC) {
            *value = (uint16_t)(ADC1_DR & 0xFFFu);
            return HAL_OK;
        }
    }
    return HAL_ERR_TIMEOUT;
}

/* ---- I2C1: PB8 SCL / PB9 SDA, 100 kHz standard mode ------------------------------------------------ */

void hal_i2c_enable(void) {
    RCC_APB1ENR |= RCC_APB1ENR_I2C1EN;
    (void)RCC_APB1ENR;
    I2C1_CR1 = I2C_CR1_SWRST; /* clears a BUSY flag left over from a glitch on the pins */
    I2C1_CR1 = 0;
    I2C1_CR2 = SYSCLK_HZ / 1000000u; /* FREQ = PCLK1 in MHz */
    /* Standard mode, duty 1:1: CCR = PCLK1 / (2 * 100 kHz) = 80; TRISE = 1000 ns * 16 MHz + 1. */
    I2C1_CCR = SYSCLK_HZ / (2u * 100000u);
    I2C1_TRISE = SYSCLK_HZ / 1000000u + 1u;
    I2C1_CR1 = I2C_CR1_PE;
}

static int i2c_wait(uint32_t flag) {
    for (uint32_t n = 0; n < POLL_LIMIT; n++) {
        uint32_t sr1 = I2C1_SR1;
        if (sr1 & I2C_SR1_AF) {
            I2C1_SR1 = ~I2C_SR1_AF; /* rc_w0 */
            I2C1_CR1 |= I2C_CR1_STOP;
            return HAL_ERR_NACK;
        }
        if (sr1 & (I2C_SR1_ARLO | I2C_SR1_BERR)) {
            I2C1_SR1 = ~(I2C_SR1_ARLO | I2C_SR1_BERR);
            return HAL_ERR_BUSY;
        }
        if (sr1 & flag) return HAL_OK;
    }
    return HAL_ERR_TIMEOUT;
}

static int i2c_fail(int st) {
    if (st != HAL_ERR_NACK) {
        /* Lost or stuck transfer: reset the peripheral so the next command starts clean. */
        I2C1_CR1 |= I2C_CR1_STOP;
        hal_i2c_enable();
    }
    for (uint32_t n = 0; n < POLL_LIMIT && (I2C1_CR1 & I2C_CR1_STOP); n++) {
    }
    return st;
}

static int i2c_start(uint8_t addr, int read) {
    I2C1_CR1 |= I2C_CR1_START;
    int st = i2c_wait(I2C_SR1_SB);
    if (st) return st;
    I2C1_DR = (uint32_t)(addr << 1) | (read ? 1u : 0u);
    return i2c_wait(I2C_SR1_ADDR);
}

static void delay_5us(void) {
    for (volatile uint32_t i = 0; i < 20u; i++) { /* ~5 us at 16 MHz (4 cycles per iteration) */
    }
}

/* A target reset in the middle of a read can keep SDA low forever, waiting for clocks it never
 * got. Clock SCL by hand (up to 9 pulses) until SDA is released, then make a STOP condition
 * (I2C-bus specification UM10204 3.1.16, "Bus clear"). PB8 = SCL, PB9 = SDA. */
static void i2c_bus_clear(void) {
    uint32_t b = PERIPH_GPIOB;
    I2C1_CR1 = 0;
    GPIO_BSRR(b) = (1u << 8) | (1u << 9); /* both released (open drain high) */
    hal_pin_mode(HAL_PORT_B, 8, HAL_MODE_OUT, HAL_PULL_UP, 0, 1);
    hal_pin_mode(HAL_PORT_B, 9, HAL_MODE_OUT, HAL_PULL_UP, 0, 1);
    for (int i = 0; i < 9 && !(GPIO_IDR(b) & (1u << 9)); i++) {
        GPIO_BSRR(b) = 1u << (8 + 16);
        delay_5us();
        GPIO_BSRR(b) = 1u << 8;
        delay_5us();
    }
    GPIO_BSRR(b) = 1u << (9 + 16); /* STOP: SDA rises while SCL is high */
    delay_5us();
    GPIO_BSRR(b) = 1u << 9;
    delay_5us();
    hal_pin_mode(HAL_PORT_B, 8, HAL_MODE_AF, HAL_PULL_UP, 4, 1);
    hal_pin_mode(HAL_PORT_B, 9, HAL_MODE_AF, HAL_PULL_UP, 4, 1);
    hal_i2c_enable();
}

int hal_i2c_transfer(uint8_t addr, const uint8_t *w, size_t wn, uint8_t *r, size_t rn) {
    if (I2C1_SR2 & I2C_SR2_BUSY) {
        hal_i2c_enable();
        if (I2C1_SR2 & I2C_SR2_BUSY) i2c_bus_clear();
        if (I2C1_SR2 & I2C_SR2_BUSY) return HAL_ERR_BUSY;
    }
    int st;
    if (wn || !rn) {
        if ((st = i2c_start(addr, 0))) return i2c_fail(st);
        (void)I2C1_SR2; /* SR1 then SR2 read clears ADDR (RM0368 18.6.6) */
        for (size_t i = 0; i < wn; i++) {
            if ((st = i2c_wait(I2C_SR1_TXE))) return i2c_fail(st);
            I2C1_DR = w[i];
        }
        if (wn && (st = i2c_wait(I2C_SR1_BTF))) return i2c_fail(st);
        if (!rn) {
            I2C1_CR1 |= I2C_CR1_STOP;
            return i2c_fail(HAL_OK);
        }
    }
    /* Repeated start (or first start) for the read phase, closed as RM0368 18.3.3 prescribes so
     * the NACK of the last byte never depends on how fast this loop runs: the peripheral
     * stretches SCL (BTF) while two bytes wait, which makes the sequence interrupt-safe. */
    I2C1_CR1 |= I2C_CR1_ACK;
    if ((st = i2c_start(addr, 1))) return i2c_fail(st);
    if (rn == 1) {
        I2C1_CR1 &= ~I2C_CR1_ACK; /* NACK the only byte: armed before ADDR is cleared */
        (void)I2C1_SR2;
        I2C1_CR1 |= I2C_CR1_STOP;
        if ((st = i2c_wait(I2C_SR1_RXNE))) return i2c_fail(st);
        r[0] = (uint8_t)I2C1_DR;
    } else if (rn == 2) {
        /* POS: the ACK bit applies to the next byte, i.e. the second one gets the NACK. */
        I2C1_CR1 = (I2C1_CR1 & ~I2C_CR1_ACK) | I2C_CR1_POS;
        (void)I2C1_SR2;
        if ((st = i2c_wait(I2C_SR1_BTF))) return i2c_fail(st);
        I2C1_CR1 |= I2C_CR1_STOP;
        r[0] = (uint8_t)I2C1_DR;
        r[1] = (uint8_t)I2C1_DR;
        I2C1_CR1 &= ~I2C_CR1_POS;
    } else {
        (void)I2C1_SR2;
        for (size_t i = 0; i < rn - 3; i++) {
            if ((st = i2c_wait(I2C_SR1_RXNE))) return i2c_fail(st);
            r[i] = (uint8_t)I2C1_DR;
        }
        /* Three bytes left: byte N-2 in DR and N-1 in the shift register once BTF is set. */
        if ((st = i2c_wait(I2C_SR1_BTF))) return i2c_fail(st);
        I2C1_CR1 &= ~I2C_CR1_ACK; /* byte N will be NACKed */
        r[rn - 3] = (uint8_t)I2C1_DR;
        if ((st = i2c_wait(I2C_SR1_BTF))) return i2c_fail(st);
        I2C1_CR1 |= I2C_CR1_STOP;
        r[rn - 2] = (uint8_t)I2C1_DR;
        if ((st = i2c_wait(I2C_SR1_RXNE))) return i2c_fail(st);
        r[rn - 1] = (uint8_t)I2C1_DR;
    }
    return i2c_fail(HAL_OK);
}

/* ---- SPI1: PA5 SCK / PA6 MISO / PA7 MOSI, controller, software NSS -------------------------------- */

void hal_spi_enable(uint8_t mode, uint32_t hz) {
    RCC_APB2ENR |= RCC_APB2ENR_SPI1EN;
    (void)RCC_APB2ENR;
    /* Baud = PCLK2 / 2^(BR+1): pick the fastest rate not above the request (8 MHz .. 62.5 kHz). */
    uint32_t br = 0;
    while (br < 7u && (SYSCLK_HZ >> (br + 1u)) > hz) br++;
    SPI1_CR1 = 0;
    SPI1_CR1 = (mode & 1u ? SPI_CR1_CPHA : 0) | (mode & 2u ? SPI_CR1_CPOL : 0) | SPI_CR1_MSTR |
               (br << SPI_CR1_BR_SHIFT) | SPI_CR1_SSM | SPI_CR1_SSI | SPI_CR1_SPE;
}

int hal_spi_transfer(uint8_t *buf, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t k;
        for (k = 0; k < POLL_LIMIT && !(SPI1_SR & SPI_SR_TXE); k++) {
        }
        SPI1_DR = buf[i];
        for (k = 0; k < POLL_LIMIT && !(SPI1_SR & SPI_SR_RXNE); k++) {
        }
        if (k == POLL_LIMIT) return HAL_ERR_TIMEOUT;
        buf[i] = (uint8_t)SPI1_DR;
    }
    for (uint32_t k = 0; k < POLL_LIMIT && (SPI1_SR & SPI_SR_BSY); k++) {
    }
    return HAL_OK;
}
