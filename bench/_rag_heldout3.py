"""Third held-out set: measured, never tuned on.

Written before the ranking work of this round and kept apart from the tuning set
(bench/_rag_questions.py) and the two earlier held-out sets; only its totals are looked at while the
ranking changes. The kinds of question a field engineer asks at the bench: the shared 40-pin Pi
header asked through one Pi model, a chip pin name as the only hint of the board, tables holding two
(name, pin) pairs per row, everyday words for datasheet terms, register lookups, alternate functions
and electrical limits. Same hit rule as the other sets.
"""

from __future__ import annotations

from bench._rag_questions import Question

HELD_OUT_3: tuple[Question, ...] = (
    # the shared 40-pin header through one Pi model, or no model at all
    Question("which physical pin carries GPIO22 on a pi zero 2 w", ("rpi-zero-2w",), "rpi-gpio.txt",
             "15   | GPIO22"),
    Question("pi 5 spi0 chip enable 0 header pin", ("rpi-5",), "rpi-gpio.txt", "GPIO8, pin 24"),
    Question("how much can I draw from the 3.3v pins of a pi 4", ("rpi-4b",),
             "rpi-gpio.txt|generic-logic-levels.md", "500 mA"),
    Question("frame sync line for an i2s dac on a pi 4 header", ("rpi-4b",), "rpi-gpio.txt", "pin 35"),
    Question("what pull-up does a ds18b20 one wire sensor need on the pi", (), "rpi-gpio.txt", "4.7 kOhm"),
    Question("which pins are the HAT id eeprom on a pi 5", ("rpi-5",), "rpi-gpio.txt", "pins 27 and 28"),
    Question("why does GPIO3 read high with nothing attached on my zero 2 w", ("rpi-zero-2w",), "rpi-gpio.txt",
             "1.8 kOhm"),
    Question("pi 5 config.txt drive a gpio low at boot", ("rpi-5",), "rpi-gpio.txt", "dh/dl"),
    Question("GPIO21 header position", (), "rpi-gpio.txt", "pin 40"),
    Question("wiringpi 0 is which bcm line", (), "rpi-gpio.txt", "WPI0"),
    # a chip pin name is the only hint of the board
    Question("PJ0 which serial port", (), "arduino-mega2560.md", "Serial3"),
    Question("PE4 which digital pin", (), "arduino-mega2560.md", "| D2 | PE4"),
    Question("PF7 analog pin number", (), "arduino-mega2560.md", "A7 (61)"),
    Question("PH0 uart role", (), "arduino-mega2560.md", "Serial2"),
    Question("what does GP29 measure", (), "rpi-pico.md", "VSYS sense"),
    Question("GP24 purpose", (), "rpi-pico.md", "VBUS sense"),
    Question("GP13 pwm output", (), "rpi-pico.md", "PWM6 B"),
    Question("GP8 spi function", (), "rpi-pico.md", "SPI1 RX"),
    Question("P1.08 arduino header position", (), "nrf52840dk.md", "| D7 | P1.08"),
    Question("P0.17 what is it used for", (), "nrf52840dk.md", "CSN P0.17"),
    Question("is P0.02 the analog reference", (), "nrf52840dk.md", "AREF is P0.02"),
    Question("can I use P0.18 as a normal gpio", (), "nrf52840dk.md", "reset line"),
    Question("can GPIO35 drive an LED", (), "esp32-devkitc.md", "input only"),
    Question("GPIO12 pulled high and the module will not boot", (), "esp32-devkitc.md", "1.8 V flash"),
    Question("GPIO0 touch channel", (), "esp32-devkitc.md", "TOUCH1"),
    Question("PA15 which spi bus", (), "nucleo-l476rg.md", "SPI3"),
    Question("PC9 i2c role", (), "nucleo-f401re.md", "PA8 / PC9"),
    Question("PB12 can bus on the f446", (), "nucleo-f446re.md", "CAN2 RX"),
    Question("PA11 PA12 i2c on the g071", (), "nucleo-g071rb.md", "I2C2"),
    Question("is PB11 available on the f446re morpho header", (), "nucleo-f446re.md", "PB11 does not exist"),
    # two (name, pin) pairs per table row
    Question("mega D42 port pin", (), "arduino-mega2560.md", "PL7"),
    Question("mega D37 avr pin", (), "arduino-mega2560.md", "| D37 | PC0"),
    Question("mega A8 avr pin", (), "arduino-mega2560.md", "A8 (62) | PK0"),
    Question("pico edge pin 31 function", ("rpi-pico",), "rpi-pico.md", "GP26 / ADC0"),
    Question("pico pin 37 what is it for", ("rpi-pico",), "rpi-pico.md", "3V3_EN"),
    Question("zephyr arduino header index for D12", (), "generic-arduino-r3-header.md", "| D12 | 18"),
    Question("arduino-header-r3 index of D14", (), "generic-arduino-r3-header.md", "| D14 | 20"),
    # everyday words for datasheet terms
    Question("pressure sensor standby 2 seconds code", (), "bmp280.md", "2000 ms"),
    Question("accelerometer sensitivity at 8g", (), "mpu6050.md", "4096"),
    Question("imu reads all zeros after power up", (), "mpu6050.md", "PWR_MGMT_1"),
    Question("how accurate is the real time clock per year", (), "ds3231.md", "a minute per year"),
    Question("oled stays dark, charge pump command", (), "ssd1306.md", "0x8D"),
    Question("oled flip the picture upside down", (), "ssd1306.md", "0xC8"),
    Question("servo driver prescale for 50 hz", (), "pca9685.md", "121"),
    Question("servo board turn every output off at once with a pin", (), "pca9685.md", "OE pin"),
    Question("fastest sample rate of the ads1115", (), "ads1115.md", "860 SPS"),
    Question("humidity sensor checksum polynomial", (), "sht31.md", "0x31"),
    Question("sht31 heater on command", (), "sht31.md", "0x306D"),
    # register lookups
    Question("mpu6050 register 0x1C", (), "mpu6050.md", "ACCEL_CONFIG"),
    Question("bme280 register 0xF5 fields", (), "bme280.md", "t_sb[7:5] standby"),
    Question("pca9685 channel n on register formula", (), "pca9685.md", "LEDn_ON_L = 0x06 + 4n"),
    Question("ds3231 register 0x0E bits", (), "ds3231.md", "INTCN"),
    Question("ads1115 config register pointer", (), "ads1115.md", "0x01 | Config"),
    Question("piglow latch register", (), "piglow.md", "0x16"),
    Question("ds3231 temperature register address", (), "ds3231.md", "0x11"),
    # alternate functions
    Question("GPIO4 alternate functions on a pi 4", ("rpi-4b",), "rpi-4b.md", "UART3 TXD | I2C3 SDA"),
    Question("pi 5 GPIO18 function F2", ("rpi-5",), "rpi-5.md", "I2S0 SCLK"),
    Question("PA8 alternate function on the f401 nucleo", (), "nucleo-f401re.md", "I2C3 SCL"),
    Question("pi 4 ALT5 on GPIO14", ("rpi-4b",), "rpi-4b.md", "UART1 TXD"),
    Question("esp32 GPIO27 adc channel", (), "esp32-devkitc.md", "ADC2_CH7"),
    # electrical limits
    Question("atmega328p pin current absolute max", (), "generic-logic-levels.md", "40 mA absolute maximum"),
    Question("nrf52840 dk io voltage", (), "generic-logic-levels.md|generic-arduino-r3-header.md", "3.0 V"),
    Question("bme280 supply voltage range", (), "generic-logic-levels.md", "1.71 V to 3.6 V"),
    Question("pca9685 output sink current", (), "pca9685.md|generic-logic-levels.md", "25 mA"),
    Question("pi 4 default gpio drive strength", ("rpi-4b",), "rpi-4b.md", "4 mA"),
    Question("pi 4 internal pull-up resistance", ("rpi-4b",), "rpi-4b.md", "33 to 73 kOhm"),
    Question("will a 3.3v signal read high on a 5v arduino", (), "generic-logic-levels.md", "0.6 x VCC"),
    Question("what voltage can I feed into VSYS on a pico", ("rpi-pico",), "rpi-pico.md", "1.8 V to 5.5 V"),
    # add-on boards
    Question("which bcm line switches relay two on the automation hat", (), "automation-hat.md", "GPIO19"),
    Question("explorer hat motors clash with an i2s dac", (), "explorer-hat-pro.md", "GPIO19, GPIO20, GPIO21"),
    Question("enviro plus lcd backlight gpio", (), "enviro-plus.md", "GPIO12"),
    # bundled datasheets
    Question("uno total chip current limit", (), "arduino-uno.md", "200 mA", "bundled"),
    Question("l476 dac output pins", (), "nucleo-l476rg.md", "PA4 (A2)", "bundled"),
    Question("pi 4 activity led gpio", (), "rpi-4b.md", "GPIO42", "bundled"),
    Question("zero 2 w act led line", (), "rpi-zero-2w.md", "GPIO29", "bundled"),
    Question("J8-12 roles", (), "rpi-gpio.md", "PCM CLK, PWM0", "bundled"),
    Question("esp32 clone board led pin", (), "esp32-devkitc.md", "GPIO2", "bundled"),
    Question("pico GP29 adc reads what", (), "rpi-pico.md", "VSYS/3", "bundled"),
    Question("PB11 on the f446 morpho connector", (), "nucleo-f446re.md", "CN10-18", "bundled"),
)
