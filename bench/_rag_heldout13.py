"""Thirteenth held-out set: sealed in its round and measured once at its end; seen since, now a former held-out set.

Written from the datasheets (../shared/corpus/datasheets and the bundled datasheets/) before any ranking or
pin-rule change of the round it was written for, by reading the datasheets only: the search, the ranker and the
resolver were never run over these questions while writing them. The lines asked about were drawn at random
(a fixed seed, up to three lines a file, every file of both directories, lines an earlier set's answer is on
left out; table header rows and lines that state no fact skipped), and a question was written for each line
that states a fact: overview sentences, registers and bit fields, pin-table rows, header positions, alias
rows, library calls, supply and level advice, and 21 questions with a board configured and none named. Each
question has one answering file, and its fact is written on one line of that file. Read once at the end of its
round (0.661 / 0.934 / 0.950), bench/rag.py now measures it in every run with the other former held-out sets
(held-out 18 is the sealed set). Same hit rule as the other sets.
"""

from __future__ import annotations

from bench._rag_questions import Question

HELD_OUT_13: tuple[Question, ...] = (
    # ads1115
    Question('how do you read the ads1115 conversion register over i2c', (),
             'ads1115.md', 'Write the pointer byte, then either two data bytes'),
    Question('ads1115 config register data rate bits', (), 'ads1115.md', '| 7:5 | DR | data rate, see table'),
    Question('ads1115 comparator window mode bit', (), 'ads1115.md', '| 4 | COMP_MODE | 0 traditional with hysteresis'),
    # arduino mega 2560
    Question('mega 2560 crystal frequency', (), 'arduino-mega2560.md', '| Clock | 16 MHz |'),
    Question('how many analog inputs does the mega have', (), 'arduino-mega2560.md', '| Analog inputs | 16 (A0-A15)'),
    Question('miso pin number', ('arduino-mega2560',), 'arduino-mega2560.md', '| MISO | 50 | PB3'),
    # arduino nano
    Question('arduino nano sram size', (), 'arduino-nano.md', '| SRAM | 2048 bytes'),
    Question('nano analog pin count', (), 'arduino-nano.md', '| Analog inputs | 8 (A0-A7)'),
    Question('nano D12 port pin', (), 'arduino-nano.md', '| D12 | PB4 | SPI MISO'),
    Question('spi miso pin', ('arduino-nano',), 'arduino-nano.md', '| D12 | PB4 | SPI MISO'),
    # arduino uno (shared)
    Question('uno microcontroller and clock', (), 'arduino-uno.md', 'ATmega328P at 16 MHz, 5 V logic'),
    Question('arduino uno logic level', (), 'arduino-uno.md', '| Logic level | 5 V |'),
    Question('uno RX pin avr port', (), 'arduino-uno.md', '| RX | PD0 |'),
    # automation hat
    Question('automation hat relay 1 gpio', (), 'automation-hat.md', 'relay.one: GPIO13'),
    # blinkt
    Question('blinkt ground pin', (), 'blinkt.md', '| 6 | - | ground |'),
    Question('blinkt set brightness to 10 percent', (), 'blinkt.md', 'set_brightness(0.1)'),
    # bme280 (shared)
    Question('what does a bme280 measure', (),
             'bme280.md', 'Combined digital humidity, barometric pressure and temperature'),
    Question('bme280 oversampling code 010', (), 'bme280.md', '| 010 | x2 | 4 |'),
    Question('bme280 t_sb 100 standby time', (), 'bme280.md', '| 100 | 500 ms |'),
    # bmp280
    Question('is the bmp280 i2c or spi', (), 'bmp280.md', 'without the humidity channel. I2C or SPI'),
    Question('bmp280 which t_sb code gives 1000 ms standby', (), 'bmp280.md', '| 101 | 1000 ms |'),
    Question('what do standby codes 110 and 111 select on the bme280 compared with the bmp280', (),
             'bmp280.md', 'they select 10 ms and 20 ms.'),
    # ds3231
    Question('ds3231 minutes register', (), 'ds3231.md', '| 0x01 | Minutes | BCD'),
    Question('ds3231 day of month register', (), 'ds3231.md', '| 0x04 | Date | BCD'),
    Question('ds3231 alarm flags a1f a2f how are they cleared', (),
             'ds3231.md', 'the matching flags and must be cleared by software.'),
    # enviro phat
    Question('does the enviro phat fit a pi zero', (),
             'enviro-phat.md', 'A pHAT-sized (Pi Zero footprint) environmental sensor board'),
    Question('install the enviro phat library with pip', (),
             'enviro-phat.md', 'or `pip install envirophat`, enable I2C'),
    # enviro plus
    Question('what sensors are on the enviro plus', (),
             'enviro-plus.md', 'temperature, pressure, humidity, light/proximity, gas'),
    Question('enviro plus pms5003 rx pin', (), 'enviro-plus.md', '| PMS5003_RX | GPIO15'),
    Question('lcd dc pin', ('enviro-plus',), 'enviro-plus.md', '| LCD_DC | GPIO9'),
    # esp32 devkitc (shared)
    Question('esp32 devkitc J3 pin 7', (), 'esp32-devkitc.md', '| 7 | GND | ground'),
    Question('esp32 gpio7 use', (), 'esp32-devkitc.md', '| 18 | IO7 | GPIO7, flash D0'),
    Question('gpio7 function', ('esp32-devkitc',), 'esp32-devkitc.md', '| 18 | IO7 | GPIO7, flash D0'),
    Question('esp32 arduino core SS pin changed between releases', (),
             'esp32-devkitc.md', 'older releases of the generic `esp32` variant declared'),
    # explorer hat pro
    Question('explorer hat analog inputs and motor driver', (),
             'explorer-hat-pro.md', 'four analog inputs and a two-channel H-bridge motor driver'),
    Question('output 3 gpio', ('explorer-hat-pro',), 'explorer-hat-pro.md', '| OUT3 | GPIO13'),
    # fan shim
    Question('fan shim power pins', (), 'fan-shim.md', '| 2, 4 | - | 5 V | power'),
    Question('can I put a hat on top of the fan shim', (), 'fan-shim.md', 'mounted above it on a stacking header'),
    Question('is the fan shim fan speed adjustable', (),
             'fan-shim.md', 'fully on or off, and software typically applies'),
    # generic arduino r3 header
    Question('which note explains how zephyr describes the arduino r3 header', (),
             'generic-arduino-r3-header.md', 'explains how Zephyr describes the header'),
    Question('zephyr arduino_serial node label', (),
             'generic-arduino-r3-header.md', '`arduino_serial`, so a shield overlay can attach devices'),
    Question('ioref voltage on uno nano and mega', (),
             'generic-arduino-r3-header.md', '| Arduino Uno, Nano, Mega 2560 | 5 V | IOREF = 5 V'),
    # generic i2c addresses (shared)
    Question('i2c address cross reference before stacking boards', (),
             'generic-i2c-addresses.md', 'documented in this folder. Use it before stacking boards'),
    Question('are the i2c addresses in these notes 7-bit or 8-bit', (),
             'generic-i2c-addresses.md', 'All addresses are 7-bit (Linux i2cdetect and Arduino Wire style)'),
    # generic logic levels (shared)
    Question('reference for mixing 3.3 v and 5 v boards', (),
             'generic-logic-levels.md', 'Cross-board reference for mixing 3.3 V and 5 V hardware'),
    Question('are arduino mega outputs 5 v', (),
             'generic-logic-levels.md', '| Arduino Uno / Nano / Mega 2560 | 5 V | n/a (5 V native)'),
    Question('i2c pull-up voltage when mixing 3.3 v and 5 v parts', (),
             'generic-logic-levels.md', 'pull the bus up to the LOWER of the two voltages'),
    # mpu6050
    Question('does the mpu-6050 have a temperature sensor', (),
             'mpu6050.md', 'three-axis gyroscope with an on-die temperature'),
    Question('mpu6050 self test registers', (), 'mpu6050.md', '| 0x0D-0x10 | SELF_TEST_X/Y/Z/A'),
    Question('mpu6050 dlpf_cfg 5 bandwidth', (), 'mpu6050.md', '| 5 | 10 Hz |'),
    # nrf52840 dk
    Question('nrf52840 dk arduino D4 pin', (), 'nrf52840dk.md', '| D4 | P1.05 |'),
    Question('spi sck', ('nrf52840dk',), 'nrf52840dk.md', '| D13 | P1.15 | SPI SCK'),
    Question('nrf52840 dk A0 alias', (), 'nrf52840dk.md', '| A0 | P0.03 |'),
    # nucleo-f401re (shared)
    Question('nucleo f401re power input options', (),
             'nucleo-f401re.md', '| Board power | USB VBUS or external 3.3 V, 5 V, 7-12 V'),
    Question('how many gpio ports on the nucleo f401re', (),
             'nucleo-f401re.md', '| GPIO controllers | 6 ports (GPIOA-GPIOE, GPIOH)'),
    Question('which pin is spi miso', ('nucleo-f401re',), 'nucleo-f401re.md', '| D12 | PA6 | SPI1 MISO'),
    # nucleo-f446re (shared)
    Question('f446re stm32duino variant quirks', (),
             'nucleo-f446re.md', 'Board-specific quirks from the stm32duino variant'),
    Question('nucleo f446re can2 rx', (), 'nucleo-f446re.md', '| CAN2_RX | PB12'),
    Question('can2 tx pin', ('nucleo-f446re',), 'nucleo-f446re.md', '| CAN2_TX | PB13'),
    # nucleo-g071rb
    Question('is the nucleo g071rb the same form factor as other nucleo-64 boards', (),
             'nucleo-g071rb.md', 'the other Nucleo-64 boards (Arduino Uno V3 + ST morpho headers'),
    Question('g071rb st-link virtual com port', (),
             'nucleo-g071rb.md', '| Debug | ST-LINK with virtual COM port, mass storage'),
    Question('debugger', ('nucleo-g071rb',), 'nucleo-g071rb.md', '| Debug | ST-LINK with virtual COM port'),
    Question('what is volt-sensor0', ('nucleo-g071rb',), 'nucleo-g071rb.md', '| volt-sensor0 | VREFINT'),
    # nucleo-l476rg (shared)
    Question('nucleo l476rg mcu core', (), 'nucleo-l476rg.md', '| MCU | STM32L476RG, Cortex-M4 with FPU'),
    Question('nucleo l476rg D2 stm32 pin', (), 'nucleo-l476rg.md', '| 8 | D2 | PA10'),
    Question('D3 pin', ('nucleo-l476rg',), 'nucleo-l476rg.md', '| 9 | D3 | PB3'),
    # pca9685
    Question('adafruit pca9685 servo hat product number', (), 'pca9685.md', '(product 2327).'),
    Question('pca9685 allcalladr register', (), 'pca9685.md', '(ALLCALLADR register 0x05 holds it in 8-bit form)'),
    Question('pca9685 which mode1 bit turns on auto-increment', (), 'pca9685.md', 'and AI (0x20, auto-increment)'),
    # piglow
    Question('piglow header pin 17', (), 'piglow.md', '| 17 | 3.3 V |'),
    Question('piglow ground pin', (), 'piglow.md', '| 14 | ground |'),
    Question('which header pin is ground', ('piglow',), 'piglow.md', '| 14 | ground |'),
    Question('piglow pwm registers per output', (),
             'piglow.md', 'Each of the 18 outputs has its own 8-bit PWM register'),
    # raspberry pi 4 (shared)
    Question('pi 4 gpio header name', (), 'rpi-4b.md', '| GPIO header | J8, 40 pins, 3.3 V logic'),
    Question('how many pins on the gpio header', ('rpi-4b',), 'rpi-4b.md', '| GPIO header | J8, 40 pins'),
    Question('pi 4 gpio drive strength is that a current limit', (),
             'rpi-4b.md', 'The drive-strength values are register settings, not a safe current rating.'),
    Question('uart5 rxd', ('rpi-4b',), 'rpi-4b.md', '| UART5_RXD | GPIO13'),
    # raspberry pi 5 (shared)
    Question('do old device tree overlays work on the pi 5', (),
             'rpi-5.md', 'Overlays written for older models keep working'),
    Question('pi 5 requesting function 2 which rp1 function', (),
             'rpi-5.md', 'old function numbers to the nearest RP1 function. Requesting function 2'),
    Question('gpio21 alternate functions', ('rpi-5',), 'rpi-5.md', '| 21 | SPI1 SCLK | I2S0 SDO0 | GPCLK1'),
    # raspberry pi 40-pin header (shared)
    Question('most frequent raspberry pi wiring mistake', (), 'rpi-gpio.txt', 'frequent wiring mistake:'),
    Question('raspberry pi header pin 20', (), 'rpi-gpio.txt', '20   | Ground      | -      | -        | GND'),
    Question('how many i2c devices can share the pi bus', (), 'rpi-gpio.txt', 'Many devices can share the bus as long'),
    # raspberry pi pico (shared)
    Question('pico pins 18 and 23', (), 'rpi-pico.md', '| 18 | GND | 23 | GND |'),
    Question('pico default spi sck pin', (), 'rpi-pico.md', '| PICO_DEFAULT_SPI_SCK_PIN | 18 | GP18'),
    Question('spi miso', ('rpi-pico',), 'rpi-pico.md', '| SPI_MISO | GP16'),
    # sense hat
    Question('does the sense hat have an id eeprom', (),
             'sense-hat.md', 'environmental sensors on a full-size 40-pin HAT with an ID EEPROM'),
    Question('sense hat lsm9ds1 address', (), 'sense-hat.md', '| 0x6a | Accelerometer / gyroscope | LSM9DS1'),
    Question('atmel cs pin', ('sense-hat',), 'sense-hat.md', 'ATMEL_CS: GPIO8'),
    # sht31
    Question('sht31 single shot high repeatability command with clock stretching', (),
             'sht31.md', '| Single shot, high repeatability, clock stretching | 0x2C06'),
    Question('sht31 measurement bytes 0 and 1', (), 'sht31.md', '| 0-1 | raw temperature ST'),
    Question('does the sht31 need a regulator on 5 v', (), 'sht31.md', 'without a regulator.'),
    # ssd1306
    Question('ssd1306 R/W# pin in i2c mode', (), 'ssd1306.md', 'tied to ground.'),
    Question('ssd1306 SA0 pin', (), 'ssd1306.md', '| SA0 | D/C#'),
    Question('ssd1306 reset pin name', (), 'ssd1306.md', '| RST | RES#'),
    # traffic hat
    Question('gpiozero class for the traffic hat', (), 'traffic-hat.md', 'through the `TrafficHat` class.'),
    Question('traffic hat button active high or low', (),
             'traffic-hat.md', 'the pinout.xyz description marks the button as active high'),
    Question('traffic hat check if the button is pressed', (),
             'traffic-hat.md', '`TrafficHat` class simply rely on `hat.button.is_pressed`'),
    # unicorn hat
    Question('unicorn hat show the pixels', (), 'unicorn-hat.md', '`unicornhat.show()`).'),
    Question('blinkt audio conflict compared with the unicorn hat', (),
             'unicorn-hat.md', 'timing constraints and no audio conflict.'),
    Question('which of these hats need root', (),
             'unicorn-hat.md', 'bit-banged boards work as a normal user in the gpio/i2c groups'),
    # bundled datasheets
    Question('uno scl alias', (), 'arduino-uno.md', '| scl | A5 |', 'bundled'),
    Question('int1 pin', ('arduino-uno',), 'arduino-uno.md', '| int1 | D3 |', 'bundled'),
    Question('bme280 sck pin number', (), 'bme280.md', '| SCK | 4 | I2C SCL / SPI clock', 'bundled'),
    Question('bme280 GND2 pin', (), 'bme280.md', '| GND2 | 7 | ground', 'bundled'),
    Question('bme280 vdd pin', (), 'bme280.md', '| VDD | 8 | core supply', 'bundled'),
    Question('list of common i2c addresses of sensor parts', (),
             'generic-i2c-addresses.md', '7-bit addresses of parts often found on sensor boards and HATs', 'bundled'),
    Question('5 v output into a 3.3 v input', (),
             'generic-logic-levels.md', 'A 5 V output driving a 3.3 V input needs a level shifter', 'bundled'),
    Question('do the generic pin names apply to every board', (),
             'generic-pin-names.md', 'its aliases apply to every board whose data can resolve the value', 'bundled'),
    Question('nucleo f401re D3 socket position', (), 'nucleo-f401re.md', '| D3 | PB3 | CN9-4 | TIM2 CH2', 'bundled'),
    Question('which socket position is D12', ('nucleo-f401re',), 'nucleo-f401re.md', '| D12 | PA6 | CN5-5', 'bundled'),
    Question('nucleo f401re vcp_rx', (), 'nucleo-f401re.md', '- `vcp_rx`: PA3', 'bundled'),
    Question('does the l476rg have the same sockets as the other nucleo boards', (),
             'nucleo-l476rg.md', 'Same Arduino sockets (CN5/CN6/CN8/CN9), morpho rows', 'bundled'),
    Question('uart4 overlay pins on the pi 4', (), 'rpi-4b.md', '| uart4 | TX GPIO8, RX GPIO9', 'bundled'),
    Question('uart1 rx', ('rpi-5',), 'rpi-5.md', '- uart1_rx: GPIO1', 'bundled'),
    Question('J8-4', (), 'rpi-gpio.md', '| J8-4 | - | 5 V', 'bundled'),
    Question('what is on J8-17', (), 'rpi-gpio.md', '| J8-17 | - | 3.3 V', 'bundled'),
    Question('raspberry pi spi ce0 alias', (), 'rpi-gpio.md', '| spi_ce0 | GPIO8', 'bundled'),
    Question('pico i2c scl alias', (), 'rpi-pico.md', '| i2c_scl | GP5', 'bundled'),
    Question('uart tx', ('rpi-pico',), 'rpi-pico.md', '| uart_tx | GP0', 'bundled'),
    Question('pico uart rx gpio', (), 'rpi-pico.md', '| uart_rx | GP1', 'bundled'),
)
