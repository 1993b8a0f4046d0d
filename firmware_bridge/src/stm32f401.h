/* The STM32F401 registers this firmware uses, written from RM0368 (STM32F401xB/C/D/E
 * reference manual) memory map and register descriptions. Only what is needed is defined. */
#ifndef STM32F401_H
#define STM32F401_H

#include <stdint.h>

#define REG(addr) (*(volatile uint32_t *)(addr))

/* RM0368 2.3 memory map */
#define PERIPH_GPIOA 0x40020000u
#define PERIPH_GPIOB 0x40020400u
#define PERIPH_GPIOC 0x40020800u
#define PERIPH_RCC 0x40023800u
#define PERIPH_USART2 0x40004400u
#define PERIPH_I2C1 0x40005400u
#define PERIPH_SPI1 0x40013000u
#define PERIPH_ADC1 0x40012000u
#define PERIPH_ADC_COMMON 0x40012300u

/* RCC (RM0368 6.3) */
#define RCC_AHB1ENR REG(PERIPH_RCC + 0x30)
#define RCC_APB1RSTR REG(PERIPH_RCC + 0x20)
#define RCC_APB1ENR REG(PERIPH_RCC + 0x40)
#define RCC_APB2ENR REG(PERIPH_RCC + 0x44)
#define RCC_CSR REG(PERIPH_RCC + 0x74)
#define RCC_AHB1ENR_GPIOAEN (1u << 0)
#define RCC_AHB1ENR_GPIOBEN (1u << 1)
#define RCC_AHB1ENR_GPIOCEN (1u << 2)
#define RCC_APB1ENR_USART2EN (1u << 17)
#define RCC_APB1ENR_I2C1EN (1u << 21)
#define RCC_APB1RSTR_I2C1RST (1u << 21)
#define RCC_APB2ENR_ADC1EN (1u << 8)
#define RCC_APB2ENR_SPI1EN (1u << 12)
#define RCC_CSR_RMVF (1u << 24)
#define RCC_CSR_BORRSTF (1u << 25)
#define RCC_CSR_PINRSTF (1u << 26)
#define RCC_CSR_PORRSTF (1u << 27)
#define RCC_CSR_SFTRSTF (1u << 28)
#define RCC_CSR_IWDGRSTF (1u << 29)
#define RCC_CSR_WWDGRSTF (1u << 30)

/* GPIO (RM0368 8.4): one block per port, 0x400 apart */
#define GPIO_MODER(base) REG((base) + 0x00)
#define GPIO_OTYPER(base) REG((base) + 0x04)
#define GPIO_OSPEEDR(base) REG((base) + 0x08)
#define GPIO_PUPDR(base) REG((base) + 0x0C)
#define GPIO_IDR(base) REG((base) + 0x10)
#define GPIO_ODR(base) REG((base) + 0x14)
#define GPIO_BSRR(base) REG((base) + 0x18)
#define GPIO_AFRL(base) REG((base) + 0x20)
#define GPIO_AFRH(base) REG((base) + 0x24)

/* USART (RM0368 19.6) */
#define USART2_SR REG(PERIPH_USART2 + 0x00)
#define USART2_DR REG(PERIPH_USART2 + 0x04)
#define USART2_BRR REG(PERIPH_USART2 + 0x08)
#define USART2_CR1 REG(PERIPH_USART2 + 0x0C)
#define USART_SR_ORE (1u << 3)
#define USART_SR_RXNE (1u << 5)
#define USART_SR_TXE (1u << 7)
#define USART_CR1_RE (1u << 2)
#define USART_CR1_TE (1u << 3)
#define USART_CR1_RXNEIE (1u << 5)
#define USART_CR1_UE (1u << 13)

/* I2C (RM0368 18.6) */
#define I2C1_CR1 REG(PERIPH_I2C1 + 0x00)
#define I2C1_CR2 REG(PERIPH_I2C1 + 0x04)
#define I2C1_DR REG(PERIPH_I2C1 + 0x10)
#define I2C1_SR1 REG(PERIPH_I2C1 + 0x14)
#define I2C1_SR2 REG(PERIPH_I2C1 + 0x18)
#define I2C1_CCR REG(PERIPH_I2C1 + 0x1C)
#define I2C1_TRISE REG(PERIPH_I2C1 + 0x20)
#define I2C_CR1_PE (1u << 0)
#define I2C_CR1_START (1u << 8)
#define I2C_CR1_STOP (1u << 9)
#define I2C_CR1_ACK (1u << 10)
#define I2C_CR1_POS (1u << 11)
#define I2C_CR1_SWRST (1u << 15)
#define I2C_SR1_SB (1u << 0)
#define I2C_SR1_ADDR (1u << 1)
#define I2C_SR1_BTF (1u << 2)
#define I2C_SR1_RXNE (1u << 6)
#define I2C_SR1_TXE (1u << 7)
#define I2C_SR1_BERR (1u << 8)
#define I2C_SR1_ARLO (1u << 9)
#define I2C_SR1_AF (1u << 10)
#define I2C_SR2_BUSY (1u << 1)

/* SPI (RM0368 20.5) */
#define SPI1_CR1 REG(PERIPH_SPI1 + 0x00)
#define SPI1_SR REG(PERIPH_SPI1 + 0x08)
#define SPI1_DR REG(PERIPH_SPI1 + 0x0C)
#define SPI_CR1_CPHA (1u << 0)
#define SPI_CR1_CPOL (1u << 1)
#define SPI_CR1_MSTR (1u << 2)
#define SPI_CR1_BR_SHIFT 3
#define SPI_CR1_SPE (1u << 6)
#define SPI_CR1_SSI (1u << 8)
#define SPI_CR1_SSM (1u << 9)
#define SPI_SR_RXNE (1u << 0)
#define SPI_SR_TXE (1u << 1)
#define SPI_SR_BSY (1u << 7)

/* ADC (RM0368 11.12) */
#define ADC1_SR REG(PERIPH_ADC1 + 0x00)
#define ADC1_CR2 REG(PERIPH_ADC1 + 0x08)
#define ADC1_SMPR1 REG(PERIPH_ADC1 + 0x0C)
#define ADC1_SMPR2 REG(PERIPH_ADC1 + 0x10)
#define ADC1_SQR1 REG(PERIPH_ADC1 + 0x2C)
#define ADC1_SQR3 REG(PERIPH_ADC1 + 0x34)
#define ADC1_DR REG(PERIPH_ADC1 + 0x4C)
#define ADC_CCR REG(PERIPH_ADC_COMMON + 0x04)
#define ADC_SR_EOC (1u << 1)
#define ADC_CR2_ADON (1u << 0)
#define ADC_CR2_SWSTART (1u << 30)

/* Independent watchdog (RM0368 16.4), clocked by the ~32 kHz LSI */
#define IWDG_KR REG(0x40003000u)
#define IWDG_PR REG(0x40003004u)
#define IWDG_RLR REG(0x40003008u)
#define IWDG_KEY_RELOAD 0xAAAAu
#define IWDG_KEY_UNLOCK 0x5555u
#define IWDG_KEY_START 0xCCCCu

/* SysTick (PM0214 4.5) */
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)

/* Cortex-M4 NVIC (PM0214 4.2): USART2 global interrupt is IRQ 38 (RM0368 table 38). */
#define NVIC_ISER1 REG(0xE000E104u)
#define USART2_IRQN 38u

/* Reset clock: the 16 MHz HSI, which this firmware keeps (no PLL): SYSCLK = HCLK = PCLK1 =
 * PCLK2 = 16 MHz. 115200 baud and 100 kHz I2C are exact enough from it, and nothing here
 * needs speed; it also keeps the same image booting on emulators without an RCC model. */
#define SYSCLK_HZ 16000000u

#endif
