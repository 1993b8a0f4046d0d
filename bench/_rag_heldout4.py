"""Fourth held-out set: measured, never tuned on.

Written from the datasheets before the ranking work of this round, and kept apart from the tuning set
(bench/_rag_questions.py) and the three earlier held-out sets, which by now have all been looked at
while ranking changes were tried and so count as tuning questions. Only this set's totals are read,
once, at the end of a round. The kinds of question a field engineer asks at the bench: register and
address lookups, pin and alternate functions, the shared 40-pin Pi header asked through one Pi model,
a chip pin name as the only hint of the board, tables holding two (name, pin) pairs per row, everyday
words for datasheet terms, electrical limits, timing and boot modes. Same hit rule as the other sets.
"""

from __future__ import annotations

from bench._rag_questions import Question

HELD_OUT_4: tuple[Question, ...] = (
    # registers and addresses
    Question("bme280 address of the dig_H4 humidity trim value", (), "bme280.md", "0xE4"),
    Question("bmp280 returns 0x56 from the id register, is it faulty", (), "bmp280.md", "engineering samples"),
    Question("mpu6050 sample rate divider register", (), "mpu6050.md", "SMPLRT_DIV"),
    Question("mpu-6050 motion threshold register address", (), "mpu6050.md", "0x1F"),
    Question("first accelerometer data register on the mpu6050", (), "mpu6050.md", "0x3B"),
    Question("ads1115 pointer value for the low threshold register", (), "ads1115.md", "0x02 | Lo_thresh"),
    Question("ds3231 oscillator trim register", (), "ds3231.md", "0x10 | Aging offset"),
    Question("ds3231 switch the clock to 12 hour mode", (), "ds3231.md", "bit 6 selects 12/24 h"),
    Question("pca9685 auto increment bit in mode1", (), "pca9685.md", "AI 0x20"),
    Question("pca9685 invert the outputs, which bit", (), "pca9685.md", "INVRT 0x10"),
    Question("sht31 read status register command", (), "sht31.md", "0xF32D"),
    Question("ssd1306 com pins configuration value for a 128x32 panel", (), "ssd1306.md", "0x02 for 128x32"),
    Question("ssd1306 pre-charge period with the internal charge pump", (), "ssd1306.md", "0xF1"),
    Question("piglow value that enables all 18 channels", (), "piglow.md", "0x3F"),
    # pin and alternate functions
    Question("pi 4 which spi6 signal is on GPIO19", ("rpi-4b",), "rpi-4b.md", "SPI6 MISO"),
    Question("GPIO25 jtag function bcm2711", (), "rpi-4b.md", "JTAG TCK"),
    Question("rp1 infrared receiver function on GPIO2", (), "rpi-5.md", "IR RX0"),
    Question("pi 5 pdm microphone clock gpio", ("rpi-5",), "rpi-5.md", "MIC CLK"),
    Question("which pwm slice drives GP10", (), "rpi-pico.md", "PWM5 A"),
    Question("esp32 GPIO14 jtag signal name", (), "esp32-devkitc.md", "MTMS"),
    Question("IO15 touch channel on the devkitc", (), "esp32-devkitc.md", "TOUCH3"),
    Question("PB4 timer channel on the f401 nucleo", (), "nucleo-f401re.md", "TIM3_CH1"),
    Question("nucleo f446 i2c2 pins", ("nucleo-f446re",), "nucleo-f446re.md", "PB10 / PB3"),
    Question("g071 arduino D7 stm32 pin", (), "nucleo-g071rb.md", "| D7 | PA8"),
    Question("nrf52840 i2c1 data pin", (), "nrf52840dk.md", "SDA P0.30"),
    Question("P1.13 spi signal", (), "nrf52840dk.md", "MOSI P1.13"),
    # a chip pin name is the only hint of the board
    Question("PG5 which arduino pin", (), "arduino-mega2560.md", "| D4 | PG5"),
    Question("mega 2560 which D pin is PC7", (), "arduino-mega2560.md", "D30 | PC7"),
    Question("PB7 builtin led", (), "arduino-mega2560.md", "| LED_BUILTIN | 13 | PB7 |"),
    Question("PB13 spi2 clock on the morpho connector", (),
             "nucleo-f401re.md|nucleo-l476rg.md|nucleo-g071rb.md", "SPI2"),
    Question("GP15 edge pin number", (), "rpi-pico.md", "| 20 | GP15"),
    Question("P0.11 what is connected", (), "nrf52840dk.md", "Button 1 | P0.11"),
    Question("P0.07 flow control line", (), "nrf52840dk.md", "| uart0 | P0.06 | P0.08 | P0.05 | P0.07 |"),
    Question("GPIO33 crystal function", (), "esp32-devkitc.md", "XTAL_32K_N"),
    Question("GPIO26 analog output channel", (), "esp32-devkitc.md", "DAC_2"),
    Question("PA4 hardware chip select on the f446", (), "nucleo-f446re.md", "hardware NSS on PA4"),
    Question("PC10 spi clock of which bus", (), "nucleo-l476rg.md", "PA15 / PC10 / PC11 / PC12"),
    Question("ADC6 digital read on the nano", (), "arduino-nano.md", "analog input only"),
    # tables with two (name, pin) pairs per row
    Question("mega D8 avr port pin", (), "arduino-mega2560.md", "| D8 | PH5"),
    Question("mega D5 port pin", (), "arduino-mega2560.md", "| D5 | PE3"),
    Question("zephyr arduino header index of D9", (), "generic-arduino-r3-header.md", "| D9 | 15"),
    Question("pico edge pin 24 name", ("rpi-pico",), "rpi-pico.md", "| 24 | GP18"),
    Question("pico pin 33 ground for the adc", ("rpi-pico",), "rpi-pico.md", "AGND"),
    # the shared 40-pin header through one Pi model
    Question("pi 5 gpclk0 header pin", ("rpi-5",), "rpi-gpio.txt", "GPCLK0 is on GPIO4 (pin 7)"),
    Question("zero 2 w hardware pwm channel 0 header position", ("rpi-zero-2w",), "rpi-gpio.txt",
             "hardware PWM channel 0"),
    Question("pi 4 spi1 chip enable 2 pin", ("rpi-4b",), "rpi-gpio.txt", "CE2: GPIO16, pin 36"),
    Question("pi 5 i2s data out header pin", ("rpi-5",), "rpi-gpio.txt", "GPIO21, pin 40"),
    Question("how do I turn on spi on my zero 2 w", ("rpi-zero-2w",), "rpi-gpio.txt", "dtparam=spi=on"),
    Question("pi 4 uart0 cts flow control pin", ("rpi-4b",), "rpi-gpio.txt", "GPIO16 (CTS, pin 36)"),
    Question("move the 1-wire data line to header pin 11 on a pi 5", ("rpi-5",), "rpi-gpio.txt", "gpiopin=17"),
    Question("raspberry pi general purpose clock sources", (), "rpi-gpio.txt", "19.2 MHz"),
    Question("firmware reads the hat eeprom on which pins", (), "rpi-gpio.txt", "HAT EEPROM there at boot"),
    Question("spidev device for chip select 1 on a pi 5", ("rpi-5",), "rpi-gpio.md", "/dev/spidev0.1", "bundled"),
    Question("zero 2 w J8-33 role", ("rpi-zero-2w",), "rpi-gpio.md", "GPIO13 | PWM1", "bundled"),
    # everyday words for datasheet terms
    Question("humidity sensor that has no register map", (), "sht31.md", "16-bit command"),
    Question("real time clock drift ppm", (), "ds3231.md", "2 ppm"),
    Question("neopixel hat data gpio", (), "unicorn-hat.md", "WS2812 data"),
    Question("which led board needs root", (), "unicorn-hat.md", "root access"),
    Question("oled frame buffer uses half the ram of an uno", (), "ssd1306.md", "half the RAM"),
    Question("compass chip address on the enviro phat", (), "enviro-phat.md", "0x1d"),
    Question("barometer altitude sea level pressure assumed", (), "bmp280.md", "1013.25"),
    Question("servo centre pulse in ticks", (), "pca9685.md", "307 ticks"),
    Question("pimoroni relay board relay 3 gpio", (), "automation-hat.md", "GPIO16"),
    Question("stoplight hat red led gpio", (), "traffic-hat.md", "GPIO24"),
    Question("cooling fan shim wake input pin", (), "fan-shim.md", "GPIO3"),
    Question("sense hat temperature reads too warm", (), "sense-hat.md", "extension cable"),
    Question("enviro plus display cannot read back over spi", (), "enviro-plus.md", "write-only"),
    Question("can the blinkt and the traffic hat be used together", (), "traffic-hat.md|blinkt.md",
             "GPIO23"),
    # electrical limits
    Question("esp32 devkitc powering from usb and the 5v pin at the same time", (), "esp32-devkitc.md",
             "Feeding two at once"),
    Question("pico vbus pin voltage", ("rpi-pico",), "rpi-pico.md", "5 V straight from the micro-USB"),
    Question("stm32f401 mcu supply voltage range", (), "nucleo-f401re.md|nucleo-f446re.md", "1.7 V to 3.6 V"),
    Question("older pi input low threshold", (), "generic-logic-levels.md|rpi-4b.md", "0.9 V"),
    Question("ssd1306 logic supply voltage", (), "generic-logic-levels.md", "1.65 V to 3.3 V"),
    Question("sht31 supply voltage range", (), "sht31.md|generic-logic-levels.md", "2.4 V to 5.5 V"),
    Question("uno current per io pin", ("arduino-uno",), "arduino-uno.md", "20 mA recommended", "bundled"),
    Question("led series resistor on a 3.3 v gpio", (), "generic-logic-levels.md", "330 Ohm", "bundled"),
    Question("pi 5 supply needed for full usb port current", ("rpi-5",), "rpi-5.md", "5 V 5 A", "bundled"),
    # timing
    Question("pca9685 oscillator settle time after sleep", (), "pca9685.md", "500 us"),
    Question("bme280 standby code for 10 ms", (), "bme280.md", "110 | 10 ms"),
    Question("mpu6050 low power wake-up rates", (), "mpu6050.md", "1.25 Hz"),
    Question("ads1015 fastest data rate", (), "ads1115.md", "3300 SPS"),
    Question("i2c 1 MHz fast mode plus support", (), "generic-i2c-addresses.md", "1 MHz"),
    # boot modes and bootloaders
    Question("esp32 enter firmware download mode", (), "esp32-devkitc.md", "Hold Boot, then press EN"),
    Question("esp32 board keeps going into download mode, capacitor", (), "esp32-devkitc.md", "C15"),
    Question("pico usb mass storage bootloader test pad", (), "rpi-pico.md", "TP6"),
    Question("uno bootloader size", (), "arduino-uno.md", "512-byte Optiboot"),
    Question("nrf dk mcuboot button", (), "nrf52840dk.md", "mcuboot-button0"),
    Question("f401 mcuboot image-0 slot address", (), "nucleo-f401re.md|nucleo-f446re.md",
             "image-0 128 KB at 0x00020000"),
)
