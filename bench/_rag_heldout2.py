"""Second held-out set: measured, never tuned on.

Written before the ranking learned that a chip-specific pin name points at the boards that have it,
and kept apart from both the tuning set (bench/_rag_questions.py) and the first held-out set
(bench/_rag_heldout.py); only its totals are ever looked at. The kinds of question the first sets
had too few of: a pin name as the only hint of the board (``PJ1``, ``GP29``, ``P0.17``,
``GPIO36``), the shared 40-pin Pi header asked about through one Pi model, tables holding two
(name, pin) pairs per row, and everyday words for datasheet terms. Same hit rule as the other sets.
"""

from __future__ import annotations

from bench._rag_questions import Question

HELD_OUT_2: tuple[Question, ...] = (
    # a chip pin name is the only hint of the board (no scope)
    Question("PJ1 belongs to which serial port", (), "arduino-mega2560.md", "Serial3"),
    Question("PH1 is the tx of which uart", (), "arduino-mega2560.md", "Serial2"),
    Question("PC0 on the 2560 digital number", (), "arduino-mega2560.md", "D37"),
    Question("PF7 analog input number", (), "arduino-mega2560.md", "A7 (61)"),
    Question("PD7 digital pin on the mega", (), "arduino-mega2560.md", "D38"),
    Question("GP29 what does it measure", (), "rpi-pico.md", "VSYS sense"),
    Question("GP23 regulator mode pin low or high", (), "rpi-pico.md", "PFM"),
    Question("GP24 usb power detect", (), "rpi-pico.md", "VBUS sense"),
    Question("GP12 pwm slice and channel", (), "rpi-pico.md", "PWM6 A"),
    Question("GP1 i2c signal", (), "rpi-pico.md", "I2C0 SCL"),
    Question("P0.17 flash chip select", (), "nrf52840dk.md", "CSN P0.17"),
    Question("P1.15 spi clock", (), "nrf52840dk.md", "SCK P1.15"),
    Question("P0.03 analog input number", (), "nrf52840dk.md", "AIN1"),
    Question("P0.18 reset line", (), "nrf52840dk.md", "pin reset"),
    Question("GPIO36 sensor vp input only", (), "esp32-devkitc.md", "SENSOR_VP"),
    Question("GPIO35 adc channel", (), "esp32-devkitc.md", "ADC1_CH7"),
    Question("GPIO32 capacitive touch channel", (), "esp32-devkitc.md", "TOUCH9"),
    Question("IO16 taken by psram on wrover", (), "esp32-devkitc.md", "PSRAM"),
    Question("PA10 usart on the f401 nucleo", (), "nucleo-f401re.md", "USART1 RX"),
    Question("PB3 trace output swo", (), "nucleo-f401re.md", "SWO"),
    Question("PA8 i2c3 clock nucleo", (), "nucleo-f401re.md|nucleo-l476rg.md|nucleo-f446re.md", "I2C3 SCL"),
    Question("PB12 spi2 chip select on the morpho header", (), "nucleo-f401re.md|nucleo-f446re.md|nucleo-l476rg.md",
             "SPI2 NSS"),
    Question("which analog header pin is PB11 on the g071", (), "nucleo-g071rb.md", "A4 | PB11"),
    Question("PD3 timer output on the uno", (), "arduino-uno.md", "OC2B"),
    Question("PC4 i2c data on the uno", (), "arduino-uno.md", "I2C SDA"),
    Question("GPIO18 rp1 i2s function", (), "rpi-5.md", "I2S0 SCLK"),
    Question("GPIO4 uart function on rp1", (), "rpi-5.md", "UART2 TXD"),
    Question("GPIO8 alt4 uart on the bcm2711", (), "rpi-4b.md", "UART4 TXD"),
    Question("GPIO22 jtag signal on a pi 4", (), "rpi-4b.md", "JTAG TRST"),
    # the shared 40-pin header through one Pi model (rpi-gpio.txt answers for every 40-pin Pi)
    Question("fixed pull-ups on the i2c pins of the pi 5", ("rpi-5",), "rpi-gpio.txt", "1.8 kOhm"),
    Question("pi zero 2 w 1-wire default pin", ("rpi-zero-2w",), "rpi-gpio.txt", "GPIO4 (pin 7)"),
    Question("hat id eeprom pins on a pi 4", ("rpi-4b",), "rpi-gpio.txt", "pins 27 and 28"),
    Question("uart receive header pin on the pi 5", ("rpi-5",), "rpi-gpio.txt", "GPIO15 (RXD, pin 10)"),
    Question("pi 4 pcm frame sync pin", ("rpi-4b",), "rpi-gpio.txt", "GPIO19, pin 35"),
    Question("which pin is wiringpi 7 on the zero 2", ("rpi-zero-2w",), "rpi-gpio.txt", "GPIO4  | 7"),
    Question("pi 5 spi0 clock header position", ("rpi-5",), "rpi-gpio.txt", "GPIO11, pin 23"),
    # two (name, pin) pairs per table row
    Question("mega A0 port pin", (), "arduino-mega2560.md", "PF0"),
    Question("pico edge pin 31 analog", ("rpi-pico",), "rpi-pico.md", "GP26 / ADC0"),
    Question("pico pin 30 what is it", ("rpi-pico",), "rpi-pico.md", "RUN"),
    # everyday words for datasheet terms
    Question("rtc force a temperature conversion bit", (), "ds3231.md", "CONV"),
    Question("display driver multiplex ratio command", (), "ssd1306.md", "0xA8"),
    Question("pwm chip sleep bit before changing the prescaler", (), "pca9685.md", "SLEEP"),
    Question("imu die temperature register", (), "mpu6050.md", "TEMP_OUT"),
    Question("adc one-shot conversion mode bit", (), "ads1115.md", "single-shot"),
    # bundled datasheets
    Question("pico sdk i2c default pins", ("rpi-pico",), "rpi-pico.md", "GP4", "bundled"),
    Question("zero 2 w activity led gpio", ("rpi-zero-2w",), "rpi-zero-2w.md", "GPIO29", "bundled"),
    Question("PC13 on the f401", (), "nucleo-f401re.md", "PC13", "bundled"),
    Question("GPIO17 header position on a pi 5", ("rpi-5",), "rpi-gpio.md", "J8-11", "bundled"),
    Question("esp32 boot button gpio", ("esp32-devkitc",), "esp32-devkitc.md", "GPIO0", "bundled"),
)
