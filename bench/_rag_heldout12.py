"""Twelfth held-out set: sealed in its round and measured at its end; seen since, now a former held-out set.

Written from the datasheets (../shared/corpus/datasheets and the bundled datasheets/) before that round's
ranking and pin-rule changes, by reading the datasheets only: the search, the ranker and the resolver were never
run over these questions while writing them. The lines asked about were drawn at random (a fixed seed, up to
three lines a file, every file of both directories, lines an earlier set's answer is on left out; table header
rows and lines that state no fact skipped), and a question was written for each line that states a fact:
overview sentences, registers and bit fields, data rates, addresses, pin-table rows, alternate functions,
limits, library calls, wiring advice, and 14 questions with a board configured and none named. Each question has
one answering file, and its fact is written on one line of that file. bench/rag.py now measures it in every run
with the other former held-out sets (held-out 18 is the sealed set). Same hit rule as the other sets.
"""

from __future__ import annotations

from bench._rag_questions import Question

HELD_OUT_12: tuple[Question, ...] = (
    # ads1115
    Question('does the ads1115 have its own voltage reference', (), 'ads1115.md', 'an internal reference and a'),
    Question('ads1015 reading is 16 times too big', (), 'ads1115.md', 'left-justifies its 12-bit result'),
    Question('ads1015 samples per second with dr = 010', (), 'ads1115.md', '| 010 | 32 SPS | 490 SPS'),
    # arduino mega 2560
    Question('mega 2560 clock speed and logic voltage', (),
             'arduino-mega2560.md', 'ATmega2560 at 16 MHz and 5 V logic'),
    Question('are the mega spi pins where the uno has them', (), 'arduino-mega2560.md', 'places as on the Uno.'),
    # arduino nano
    Question('nano external interrupt pins', (), 'arduino-nano.md', 'D2 = INT0, D3 = INT1'),
    Question('nano D4 avr port', (), 'arduino-nano.md', 'D2-D7 = PD2-PD7'),
    # arduino uno (shared)
    Question('arduino uno boards.txt id and variant', (), 'arduino-uno.md', "board id `uno`, pin variant `standard`"),
    Question('can I pull a 3.3 V i2c sensor up to 5 V on the uno', (),
             'arduino-uno.md', 'pulled up to 5 V; see generic-logic-levels.md'),
    # automation hat
    Question('automation hat analog inputs what voltage', (),
             'automation-hat.md', 'analog channels are all rated for 24 V systems'),
    Question('automation hat number of buffered inputs', (), 'automation-hat.md', 'three buffered inputs and an ADC'),
    # blinkt
    Question('blinkt vs unicorn hat, which one clashes with audio', (), 'blinkt.md', 'the Unicorn HAT on GPIO18'),
    Question('blinkt example: all eight pixels red', (), 'blinkt.md', 'set_pixel(i, 255, 0, 0)'),
    # bme280 (shared)
    Question('bme280 package size', (), 'bme280.md', '2.5 x 2.5 mm LGA'),
    Question('bme280 adafruit product number', (), 'bme280.md', 'BME280 (product 2650)'),
    Question('bme280 mode bits 11', (), 'bme280.md', 'normal (continuous, with t_sb standby between cycles)'),
    # bmp280
    Question('bmp280 address when SDO goes to vddio', (), 'bmp280.md', '| SDO to VDDIO | 0x77'),
    Question('bmp280 busy flag register', (), 'bmp280.md', '| 0xF3 | status | measuring / im_update flags'),
    Question('bmp280 standby time for t_sb 001', (), 'bmp280.md', '| 001 | 62.5 ms'),
    # ds3231
    Question('ds3231 and an mpu-6050 on the same i2c bus', (),
             'ds3231.md', 'cannot share a bus unless the MPU-6050 is moved to 0x69'),
    Question('ds3231 year register', (), 'ds3231.md', '| 0x06 | Year | BCD 00-99'),
    Question('what does rtclib lostPower check', (), 'ds3231.md', "RTClib's `lostPower()`"),
    # enviro phat
    Question('does the enviro phat have a hat eeprom', (),
             'enviro-phat.md', 'It has no ID EEPROM. Python library: `envirophat`'),
    Question('enviro phat header pin 2', (), 'enviro-phat.md', '| 2 | - | 5 V power'),
    # enviro plus
    Question('enviro+ bme280 not found at 0x77', (), 'enviro-plus.md', 'answers at 0x76, not at the 0x77 default'),
    # esp32 devkitc (shared)
    Question('which modules can an esp32 devkitc carry', (), 'esp32-devkitc.md', 'ESP32-WROOM-32E/32UE/32D/'),
    Question('esp32 devkitc io voltage', (), 'esp32-devkitc.md', 'All GPIO are 3.3 V.'),
    Question('devkitc header pin 16 gpio9 use', (), 'esp32-devkitc.md', '| 16 | IO9 | GPIO9, flash D2'),
    # explorer hat pro
    Question('explorer hat led one bcm pin', (), 'explorer-hat-pro.md', '| LED 1 | 7 | GPIO4'),
    Question('explorer hat 3v3 and ground header pins', (),
             'explorer-hat-pro.md', '3.3 V on pin 17; grounds on 6, 9, 14, 25, 30 and 39'),
    # fan shim
    Question('fan shim rgb led data gpio', (), 'fan-shim.md', '| 10 | GPIO15 | RGB LED data'),
    Question('can the fan shim run at half speed', (), 'fan-shim.md', 'Fan speed is not adjustable'),
    # generic arduino r3 header
    Question('zephyr arduino header compatible string', (),
             'generic-arduino-r3-header.md', 'compatible = "arduino-header-r3"'),
    Question('D14 SDA pin on uno, nucleo and nrf52840', (),
             'generic-arduino-r3-header.md', '| D14 (SDA) | PC4 | PB9 | PB9 | P0.26'),
    Question('does the esp32 devkitc have an arduino header', (),
             'generic-arduino-r3-header.md', 'no Arduino header; not 5 V tolerant'),
    # generic i2c addresses (shared)
    Question('ssd1306 oled i2c address with sa0 high', (), 'generic-i2c-addresses.md', '0x3D with SA0 high'),
    Question('which boards have something at 0x77', (),
             'generic-i2c-addresses.md', '| 0x77 | BMP280 / BME280 (SDO high) | Enviro pHAT'),
    Question('piglow and automation hat together on one pi', (),
             'generic-i2c-addresses.md', 'PiGlow and Automation HAT both carry an SN3218'),
    # generic logic levels (shared)
    Question('are nucleo-64 pins 5 V tolerant', (),
             'generic-logic-levels.md', '| NUCLEO-64 (STM32) | 3.3 V | most digital pins (FT)'),
    Question('will a 3.3 V output read high on a 5 V arduino input', (),
             'generic-logic-levels.md', 'V_IH is 0.6 x VCC = 3.0 V at 5 V'),
    # mpu6050
    Question('gy-521 module chip', (), 'mpu6050.md', 'Common on GY-521 modules'),
    Question('mpu6050 with a pirtc on the same bus', (),
             'mpu6050.md', 'Adafruit PiRTC, so an RTC module and an MPU-6050 on one bus'),
    Question('mpu6050 clksel 7', (), 'mpu6050.md', '7 = stop the clock'),
    # nrf52840 dk
    Question('nrf52840 dk external flash size', (), 'nrf52840dk.md', '64 Mbit external QSPI flash'),
    Question('nrf52840 dk D1 uart tx pin', (), 'nrf52840dk.md', '| D1 | P1.02 | UART1 TX'),
    Question('scl on the nordic dk arduino header', (), 'nrf52840dk.md', '| D15 | P0.27 | I2C SCL'),
    # nucleo f401re (shared)
    Question('stm32duino board name for the f401re nucleo', (),
             'nucleo-f401re.md', 'Arduino core (stm32duino) board: NUCLEO_F401RE'),
    Question('can I blink LD1 on the f401re', (),
             'nucleo-f401re.md', 'red/green USB communication LED, not user controllable'),
    Question('f401re D10 pin and its functions', (),
             'nucleo-f401re.md', '| D10 | PB6 | SPI1 CS (Zephyr cs-gpios), USART1 TX alt'),
    # nucleo f446re (shared)
    Question('f446re package', (), 'nucleo-f446re.md', 'STM32F446RET6 (Cortex-M4F with ART accelerator, LQFP64)'),
    Question('stm32f446 flash and ram', (), 'nucleo-f446re.md', '| Flash / SRAM | 512 KB / 128 KB'),
    Question('f446re arduino D4 pin', (), 'nucleo-f446re.md', 'D4 PB5'),
    # nucleo g071rb
    Question('g071rb cpu core', (), 'nucleo-g071rb.md', 'STM32G071RB (Arm Cortex-M0+, LQFP64)'),
    Question('A0 adc channel on the g071 nucleo', (), 'nucleo-g071rb.md', '| A0 | PA0 | ADC1 IN0'),
    Question('g071rb spi mosi pin', (), 'nucleo-g071rb.md', '| D11 | PA7 | SPI1 MOSI'),
    # nucleo l476rg (shared)
    Question('l476rg LD3', (), 'nucleo-l476rg.md', '| LD3 | power | red power LED'),
    Question('l476 spi2 pins', (), 'nucleo-l476rg.md', '| SPI2 CS / SCK / MISO / MOSI | PB12 / PB13 / PB14 / PB15'),
    Question('l476rg zephyr storage partition size', (), 'nucleo-l476rg.md', 'Zephyr reserves 32 KB of storage'),
    # pca9685
    Question('pca9685 oscillator frequency', (), 'pca9685.md', 'an internal 25 MHz oscillator'),
    Question('pca9685 address range with the jumpers', (), 'pca9685.md', 'Six address pins A0-A5 give 0x40 to 0x7F'),
    Question('pca9685 turn every output off with one pin', (), 'pca9685.md', 'disables all outputs at once'),
    # piglow
    Question('piglow python module', (), 'piglow.md', 'There is no EEPROM. Python library: `piglow`'),
    Question('piglow pin 1', (), 'piglow.md', '| 1 | 3.3 V'),
    Question('piglow how do new brightness values take effect', (),
             'piglow.md', 'an update register latches all of them at once'),
    # rpi 4b (shared)
    Question('pi 4 gpio15 alt functions', (), 'rpi-4b.md', '| 15 | UART0 RXD | SPI5 SCLK | UART5 RTS | UART1 RXD'),
    Question('pi 4 pwm block names', (), 'rpi-4b.md', 'PWM blocks are called PWM0 CHAN0'),
    Question('pi 4 i2c controllers usable without dtoverlay', (),
             'rpi-4b.md', 'Only i2c1 is available without an overlay'),
    # rpi 5 (shared)
    Question('pi 5 gpio1 alternate functions', (), 'rpi-5.md', '| 1 | SPI0 SIO2 | UART1 RXD | I2C0 SCL'),
    Question('pi 5 i2c3 sda gpio', (), 'rpi-5.md', '| 6 | GPCLK2 | UART2 CTS | I2C3 SDA'),
    Question('pi 5 pio function number', (), 'rpi-5.md', 'I/O and F7 is PIO'),
    # rpi-gpio (shared)
    Question('how much current can the pi 3.3 V pins supply', (), 'rpi-gpio.txt', '500 mA is a safe planning figure'),
    Question('can a gpio output power a load directly', (),
             'rpi-gpio.txt', 'control signals and power loads from the 3v3/5v pins'),
    Question('pwm with an i2s dac which pins', (), 'rpi-gpio.txt', 'next to an I2S sound card prefer GPIO12/GPIO13'),
    # rpi pico (shared)
    Question('pico board dimensions', (), 'rpi-pico.md', '21 x 51 mm'),
    Question('pico physical pin 28', (), 'rpi-pico.md', '| 13 | GND | 28 | GND'),
    # sense hat
    Question('sense hat astro pi', (), 'sense-hat.md', 'the board flown on the Astro Pi missions'),
    Question('sense hat scl header pin', (), 'sense-hat.md', '| 5 | GPIO3 | I2C1 SCL'),
    # sht31
    Question('sht31 high repeatability measurement time', (), 'sht31.md', 'high repeatability takes up to about 15 ms'),
    Question('sht31 status bit 0', (), 'sht31.md', '| 0 | write data checksum failed'),
    Question('sht31 supply range', (), 'sht31.md', 'Supply 2.4 V to 5.5 V'),
    # ssd1306
    Question('ssd1306 gddram size', (), 'ssd1306.md', 'with 1 KB of display RAM (GDDRAM)'),
    Question('ssd1306 i2c wiring of D0 D1 D2', (), 'ssd1306.md', 'D1 and D2 are tied together as SDA and D0 is SCL'),
    Question('ssd1306 acks but screen stays black', (),
             'ssd1306.md', 'stays dark even though the controller ACKs every byte'),
    # traffic hat
    Question('traffic hat gpiozero class', (), 'traffic-hat.md', 'supported directly by gpiozero'),
    Question('traffic hat lights pins in gpiozero', (), 'traffic-hat.md', 'TrafficLights(red=24, amber=23, green=22)'),
    # unicorn hat
    Question('piglow driver chip and pins', (),
             'unicorn-hat.md', '| PiGlow | 18 single-colour | SN3218 over I2C at 0x54'),
    # bundled
    Question('uno int1 pin', (), 'arduino-uno.md', 'INT0 on D2, INT1 on D3', 'bundled'),
    Question('bme280 dig_H1 address', (), 'bme280.md', 'dig_H1 at 0xA1', 'bundled'),
    Question('bme280 order of configuration writes', (),
             'bme280.md', '4. Write ctrl_hum, config, then ctrl_meas', 'bundled'),
    Question('esp32 gpio36 pull up', (),
             'esp32-devkitc.md', 'GPIO34-GPIO39 are inputs only and have no internal pull resistors', 'bundled'),
    Question('two parts at the same i2c address', (),
             'generic-i2c-addresses.md', 'cannot share one bus unless one of them has an address strap', 'bundled'),
    Question('what is at i2c address 0x68', (),
             'generic-i2c-addresses.md', '| 0x68 | DS3231 / DS1307 RTC, MPU-6050 IMU', 'bundled'),
    Question('reserved i2c addresses', (),
             'generic-i2c-addresses.md', 'Addresses 0x00-0x07 and 0x78-0x7F are reserved', 'bundled'),
    Question('is the esp32 5 volt tolerant', (), 'generic-logic-levels.md', '| ESP32 | 3.3 V | no', 'bundled'),
    Question('resistor divider values for 5 V to 3.3 V', (),
             'generic-logic-levels.md', '10 kOhm over 20 kOhm', 'bundled'),
    Question('does LED_BUILTIN exist on a raspberry pi', (),
             'generic-pin-names.md', 'a Raspberry Pi has no LED_BUILTIN', 'bundled'),
    Question('nucleo f401re LD2 arduino socket position', (),
             'nucleo-f401re.md', 'socket CN5-6) and lights when PA5 is driven high', 'bundled'),
    Question('f401re PA9 connector', (), 'nucleo-f401re.md', '| D8 | PA9 | CN5-1 | USART1 TX', 'bundled'),
    Question('f446re i2c1 pins', (), 'nucleo-f446re.md', '| I2C1 | SCL PB8 (D15), SDA PB9 (D14)', 'bundled'),
    Question('l476rg max clock', (), 'nucleo-l476rg.md', 'STM32L476RGT6 (Cortex-M4F, up to 80 MHz', 'bundled'),
    Question('l476rg spi1 chip select', (), 'nucleo-l476rg.md', 'MOSI PA7 (D11), CS PB6 (D10)', 'bundled'),
    Question('pi 4 uart5 gpio pins', (), 'rpi-4b.md', '| uart5 | TX GPIO12, RX GPIO13', 'bundled'),
    Question('pi 4 which uart is on gpio14 by default', (),
             'rpi-4b.md', 'Bluetooth holds the PL011 UART (uart0)', 'bundled'),
    Question('pi 5 where do the header gpios live', (), 'rpi-5.md', 'the header GPIOs now live on RP1', 'bundled'),
    Question('J8-38 gpio', (), 'rpi-gpio.md', '| J8-38 | GPIO20 | PCM DIN, SPI1 MOSI', 'bundled'),
    Question('enable i2c on the pi config.txt', (),
             'rpi-gpio.md', "`dtparam=i2c_arm=on` in /boot/firmware/config.txt", 'bundled'),
    Question('pico usb bootloader button', (),
             'rpi-pico.md', 'BOOTSEL held at power-up starts the USB mass-storage bootloader', 'bundled'),
    Question('pico uart0 pins', (), 'rpi-pico.md', '| UART0 | TX GP0 (pin 1), RX GP1 (pin 2)', 'bundled'),
    Question('pico vsys supply voltage limits', (), 'rpi-pico.md', 'VSYS (pin 39) accepts 1.8-5.5 V', 'bundled'),
    # a board configured, none named
    Question('external interrupt pins', ('arduino-nano',), 'arduino-nano.md', 'D2 = INT0, D3 = INT1'),
    Question('D10 functions', ('nucleo-f401re',),
             'nucleo-f401re.md', '| D10 | PB6 | SPI1 CS (Zephyr cs-gpios), USART1 TX alt'),
    Question('what is LD3', ('nucleo-l476rg',), 'nucleo-l476rg.md', '| LD3 | power | red power LED'),
    Question('mosi pin', ('nucleo-g071rb',), 'nucleo-g071rb.md', '| D11 | PA7 | SPI1 MOSI'),
    Question('gpio15 alternate functions', ('rpi-4b',),
             'rpi-4b.md', '| 15 | UART0 RXD | SPI5 SCLK | UART5 RTS | UART1 RXD'),
    Question('which gpio is i2c3 sda', ('rpi-5',), 'rpi-5.md', '| 6 | GPCLK2 | UART2 CTS | I2C3 SDA'),
    Question('header pin 16 function', ('esp32-devkitc',), 'esp32-devkitc.md', '| 16 | IO9 | GPIO9, flash D2'),
    Question('flash and sram size', ('nucleo-f446re',), 'nucleo-f446re.md', '| Flash / SRAM | 512 KB / 128 KB'),
    Question('uart tx on the arduino header', ('nrf52840dk',), 'nrf52840dk.md', '| D1 | P1.02 | UART1 TX'),
    Question('usb bootloader', ('rpi-pico',),
             'rpi-pico.md', 'BOOTSEL held at power-up starts the USB mass-storage bootloader', 'bundled'),
    Question('uart5 pins', ('rpi-4b',), 'rpi-4b.md', '| uart5 | TX GPIO12, RX GPIO13', 'bundled'),
    Question('spi1 cs pin', ('nucleo-l476rg',), 'nucleo-l476rg.md', 'MOSI PA7 (D11), CS PB6 (D10)', 'bundled'),
    Question('led 1 gpio', ('explorer-hat-pro',), 'explorer-hat-pro.md', '| LED 1 | 7 | GPIO4'),
    Question('rgb led data pin', ('fan-shim',), 'fan-shim.md', '| 10 | GPIO15 | RGB LED data'),
)
