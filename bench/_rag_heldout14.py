"""Fourteenth held-out set: sealed in its round and measured once at its end; seen since, now a former held-out set.

Written from the datasheets (../shared/corpus/datasheets and the bundled datasheets/) before any ranking or pin-rule
change of its round, by someone who neither saw the search, the ranker or the resolver nor read an earlier set:
questions typed the way a field engineer types them, short and informal, many of them symptoms ("blinkt stays dark",
"bme280 raw humidity stuck at 32768"), everyday words ("rtc module thermometer"), or a chip pin as the only hint of
the board; every file of both directories asked about, mostly in its middle and later sections, and 14 questions
with a board configured and none named (two questions worded exactly as an earlier set's were taken out). Each
question has one answering file (one names two that state the same fact), and its fact is written on one line of
that file. Read once at the end of its round: 0.760 / 0.917 / 0.938 (73 first answers of 96), well below the sets
written by the ranking's own authors (0.85-0.96 on those sets then): an outside writer's questions are the better
estimate of what a field engineer gets. bench/rag.py now measures it in every run with the other former held-out sets
(held-out 18 is the sealed set). Same hit rule as the other sets.
"""

from __future__ import annotations

from bench._rag_questions import Question

HELD_OUT_14: tuple[Question, ...] = (
    # ads1115
    Question('ads1115 fastest sample rate it can do?', (), 'ads1115.md', '860 SPS'),
    Question('ads1015 readings come out 16x too big, why', (), 'ads1115.md', 'shift right by 4'),
    # arduino-mega2560
    Question('attachInterrupt number for pin 21?', ('arduino-mega2560',), 'arduino-mega2560.md', 'D21 -> 2'),
    Question('softwareserial RX receives nothing on mega pin 8, which pins actually work', (),
             'arduino-mega2560.md', 'SoftwareSerial RX) only work on D10-D13'),
    # arduino-nano
    Question('cheap nano clone upload fails with stk500 sync errors, what do i pick', (),
             'arduino-nano.md', 'so avrdude talks at 57600 baud'),
    Question('nano digitalRead(A7) always garbage, can A7 be a digital pin?', (),
             'arduino-nano.md', 'analog input only, pin number 21'),
    # arduino-uno
    Question('attached a servo and now analogWrite on pin 10 does nothing on my uno', (),
             'arduino-uno.md', 'the Servo library takes over Timer1'),
    Question('uno which timer generates pwm on pin 3', (), 'arduino-uno.md', 'Timer2 B (OC2B)'),
    # automation-hat
    Question('automation hat second relay which gpio', (), 'automation-hat.md', 'Relay 2 | 35 | GPIO19'),
    Question('piglow stacked on the automation hat, leds go crazy', (), 'automation-hat.md',
             'boards cannot share one I2C bus'),
    # blinkt
    Question('blinkt stays dark, nothing lights up', (), 'blinkt.md', 'try the other 5 V pin'),
    Question('blinkt clock line is on which gpio', (), 'blinkt.md', 'GPIO24 | APA102 clock'),
    # bme280
    Question('bme280 humidity oversampling change never takes effect', (), 'bme280.md',
             'Write 0xF2 first, then 0xF4'),
    Question('bme280 raw humidity stuck at 32768 every read', (), 'bme280.md', 'means humidity was disabled'),
    # bmp280
    Question('bmp280 chip id reads 0x57 not 0x58, fake part?', (), 'bmp280.md',
             'engineering samples returned 0x56'),
    Question('bmp280 altitude way off, what sea level pressure does the adafruit lib assume', (),
             'bmp280.md', 'assumes 1013.25 hPa'),
    # ds3231
    Question('ds3231 how do i tell if the clock stopped when the coin cell died', (), 'ds3231.md',
             'bit 7 of register 0x0F'),
    Question('rtc module thermometer value barely ever changes', (), 'ds3231.md', 'every 64 s by the TCXO'),
    # enviro-phat
    Question('enviro phat how do i read humidity', (), 'enviro-phat.md', 'no humidity sensor on the Enviro pHAT'),
    Question('enviro phat light sensor i2c address', (), 'enviro-phat.md', 'TCS3472 | 0x29'),
    # enviro-plus
    Question('enviro+ lcd stays black, which pin turns on the backlight', (), 'enviro-plus.md',
             'GPIO12 | LCD backlight'),
    Question('pms5003 on enviro plus gives no data at all', (), 'enviro-plus.md', 'turn off the serial login shell'),
    # esp32-devkitc
    Question('esp32 analogRead on gpio4 stops working once wifi connects', (), 'esp32-devkitc.md',
             'cannot be used while Wi-Fi is running'),
    Question('devkitc keeps dropping into download mode on every reset', (), 'esp32-devkitc.md',
             'C15 capacitor on early V4 boards'),
    Question('which gpio is touch channel 7', ('esp32-devkitc',), 'esp32-devkitc.md', 'TOUCH7 | GPIO27'),
    # explorer-hat-pro
    Question('explorer hat touch pads controller address', (), 'explorer-hat-pro.md', '0x28 | capacitive touch'),
    Question('explorer hat pro together with an i2s dac hat, motors and audio clash?', (), 'explorer-hat-pro.md',
             'cannot be stacked with an I2S DAC'),
    # fan-shim
    Question('fan shim pwm speed control possible?', (), 'fan-shim.md', 'Fan speed is not adjustable'),
    Question('fan shim rgb led does nothing', (), 'fan-shim.md', 'which are the UART TX/RX pins'),
    # generic-arduino-r3-header
    Question('zephyr arduino_header index to use for D10 in a shield overlay', (), 'generic-arduino-r3-header.md',
             'D10 | 16'),
    Question('old 5v arduino shield on a 3.3v board, safe?', (), 'generic-arduino-r3-header.md',
             'over-drive 3.3 V-only boards'),
    # generic-i2c-addresses
    Question('adding an ads1115 breakout to a pi that already has an enviro+ and explorer hat, which address', (),
             'generic-i2c-addresses.md', 'strapped to 0x4A (ADDR to SDA)'),
    Question('zephyr shell command to scan the i2c bus', (), 'generic-i2c-addresses.md', 'i2c scan i2c@40005400'),
    Question('i2cdetect shows a device at 0x70 that i never wired, servo driver is on the bus', (),
             'generic-i2c-addresses.md|pca9685.md', 'All Call address'),
    # generic-logic-levels
    Question('gy-521 gyro board straight on a 5v arduino ok?', (), 'generic-logic-levels.md',
             'GY-521 modules carry a 3.3 V regulator'),
    Question('ws2812 strip powered at 5v ignores the data from the pi', (), 'generic-logic-levels.md',
             '74AHCT125 buffer'),
    # mpu6050
    Question('mpu6050 reads 0 on every axis', (), 'mpu6050.md', 'the device starts in sleep mode'),
    Question('imu strapped to 0x69 but who_am_i still returns 0x68, fake chip?', (), 'mpu6050.md',
             'upper six address bits only'),
    # nrf52840dk
    Question('which pin is button 3', ('nrf52840dk',), 'nrf52840dk.md', 'Button 3 | P0.24'),
    Question('nrf52840 dk what port pin is arduino D8', (), 'nrf52840dk.md', 'D8 is P1.10'),
    # nucleo-f401re
    Question('what can PB10 be used for', ('nucleo-f401re',), 'nucleo-f401re.md', 'TIM2_CH3, I2C2 SCL'),
    Question('nucleo f401 shield serial on D0/D1 gets nothing, which solder bridges', (), 'nucleo-f401re.md',
             'open SB13/SB14'),
    # nucleo-f446re
    Question('can shield on the f446 nucleo kills my i2c sensor on D14/D15', (), 'nucleo-f446re.md',
             'I2C1 and CAN1 cannot be active'),
    Question('zephyr clock setup: what speed does the cpu actually run at', ('nucleo-f446re',), 'nucleo-f446re.md',
             'SYSCLK 96 MHz'),
    # nucleo-g071rb
    Question('which led can i blink and on what pin', ('nucleo-g071rb',), 'nucleo-g071rb.md',
             'LD4 | PA5 | green user LED'),
    Question('float math painfully slow on the g071 nucleo, why', (), 'nucleo-g071rb.md', 'Cortex-M0+ (no FPU)'),
    # nucleo-l476rg
    Question('how low can the l476 standby current go', (), 'nucleo-l476rg.md', '130 nA in Standby'),
    Question('zephyr pwm blinky fails to build for nucleo l476rg, pwm led alias not found', (), 'nucleo-l476rg.md',
             'defines no pwm-led0 alias'),
    # pca9685
    Question('servo driver prescaler value for 50hz', (), 'pca9685.md', 'use 50 Hz (prescale 121)'),
    Question('pi reboots whenever the servos move', (), 'pca9685.md', 'brown-outs from servo current spikes'),
    # piglow
    Question('piglow: wrote the pwm values but the leds dont change', (), 'piglow.md',
             'until the update register is written'),
    Question('piglow what to write to enable all 18 channels', (), 'piglow.md', 'write 0x3F to 0x13'),
    # rpi-4b
    Question('need a second i2c bus on GPIO6 and GPIO7, which controller', ('rpi-4b',), 'rpi-4b.md',
             '31 / 26 | i2c4'),
    Question('pi 4 header serial baud rate drifts, garbage characters', (), 'rpi-4b.md',
             'baud rate follows the VPU core clock'),
    Question('pi 4 gpio output default drive current mA', (), 'rpi-4b.md', 'Default drive strength | 4 mA'),
    # rpi-5
    Question('no console output on header tx pin 8', ('rpi-5',), 'rpi-5.md', 'UART header between the HDMI ports'),
    Question('pi 5 which alt function number is uart0 on gpio14', (), 'rpi-5.md', 'is F4 on RP1, not F0'),
    # rpi-gpio
    Question('wiringpi pin 0 is which bcm gpio', (), 'rpi-gpio.txt', 'WPI0 = GPIO17'),
    Question('raspberry pi hardware pwm on gpio12 with dtoverlay, what func value', (), 'rpi-gpio.txt',
             'Use func=4 when moving a channel'),
    Question('move the 1-wire temp sensor to header pin 11 on the pi', (), 'rpi-gpio.txt',
             'dtoverlay=w1-gpio,gpiopin=17'),
    # rpi-pico
    Question('what pwm slice and channel is GP15', ('rpi-pico',), 'rpi-pico.md', 'PWM7 B'),
    Question('pico adc readings noisy, can the regulator be made quieter', (), 'rpi-pico.md',
             'high = PWM, lower ripple'),
    # sense-hat
    Question('sense hat temperature reads way too high', (), 'sense-hat.md', 'will read high when the HAT'),
    Question('sense hat joystick which i2c address', (), 'sense-hat.md', '0x46 | LED matrix and joystick'),
    # sht31
    Question('sht31 command to turn the internal heater on', (), 'sht31.md', '0x306D'),
    Question('sht31 crc check keeps failing, what polynomial', (), 'sht31.md', 'polynomial 0x31'),
    # ssd1306
    Question('128x64 oled stays blank with adafruit lib but i2cdetect sees it at 0x3c', (), 'ssd1306.md',
             'often stay blank until the address'),
    Question('oled acks every byte but the display stays dark', (), 'ssd1306.md',
             'must be enabled (0x8D, 0x14) before 0xAF'),
    # traffic-hat
    Question('traffic hat buzzer which gpio', (), 'traffic-hat.md', 'Buzzer | 29 | GPIO5'),
    Question('can i run a traffic hat and a blinkt together?', (), 'traffic-hat.md',
             'exactly the two lines a Blinkt! uses'),
    # unicorn-hat
    Question('headphone jack goes silent while the 8x8 neopixel hat runs', (), 'unicorn-hat.md',
             'analogue audio jack'),
    Question('unicorn hat script only works with sudo', (), 'unicorn-hat.md', 'Only the Unicorn HAT needs root access'),

    # --- bundled corpus ---
    # arduino-uno
    Question('uno total current draw over all pins together', (), 'arduino-uno.md', 'total for the chip 200 mA',
             'bundled'),
    Question('is there a button i can read in my sketch', ('arduino-uno',), 'arduino-uno.md',
             'no user button, only RESET', 'bundled'),
    # bme280
    Question('bosch humidity sensor: which package pin picks the i2c address', (), 'bme280.md',
             'SDO | 5 | I2C address select', 'bundled'),
    Question('bme280 forced mode keeps returning the old values', (), 'bme280.md',
             'poll status bit 3 until it clears', 'bundled'),
    # esp32-devkitc
    Question('which gpio is the onboard led', ('esp32-devkitc',), 'esp32-devkitc.md', 'many clones put one on',
             'bundled'),
    Question('esp32 devkitc cpu clock speed', (), 'esp32-devkitc.md', 'dual-core Xtensa LX6 at 240 MHz', 'bundled'),
    # generic-i2c-addresses
    Question('sensor datasheet says address 0xEC but i2cdetect shows something else', (),
             'generic-i2c-addresses.md', '0xEC >> 1 = 0x76', 'bundled'),
    Question('what pull-up value for i2c at 400khz', (), 'generic-i2c-addresses.md', '2.2 kOhm at 400 kHz',
             'bundled'),
    # generic-logic-levels
    Question('what resistor for an led on a 3.3v gpio', (), 'generic-logic-levels.md', '330 Ohm is about 4 mA',
             'bundled'),
    Question('3.3v output into a 5v cmos input sometimes reads low', (), 'generic-logic-levels.md',
             'CMOS inputs that need 0.7 x VCC', 'bundled'),
    # generic-pin-names
    Question('does a raspberry pi have an LED_BUILTIN pin to blink like arduino', (), 'generic-pin-names.md',
             'DevKitC and the Raspberry Pi boards', 'bundled'),
    # nucleo-f401re
    Question('is there a red led i can drive from code', ('nucleo-f401re',), 'nucleo-f401re.md',
             'There is no red user LED', 'bundled'),
    Question('nucleo f401 virtual com port device name on linux', (), 'nucleo-f401re.md', '/dev/ttyACM0',
             'bundled'),
    # nucleo-f446re
    Question('hardware chip select pin for spi1 on the f446 nucleo', (), 'nucleo-f446re.md',
             'hardware NSS PA4 (A2)', 'bundled'),
    Question('f446 nucleo: where is PB11 on the morpho header', (), 'nucleo-f446re.md',
             'morpho CN10-18 is unconnected', 'bundled'),
    # nucleo-l476rg
    Question('what adc channel is A0', ('nucleo-l476rg',), 'nucleo-l476rg.md', 'ADC channels 5, 6, 9, 15, 2, 1',
             'bundled'),
    Question('how do i measure the l476 nucleo sleep current', (), 'nucleo-l476rg.md',
             'Measure current on JP6 (IDD)', 'bundled'),
    # rpi-4b
    Question('which gpio is the green activity led', ('rpi-4b',), 'rpi-4b.md', 'driven by BCM GPIO42', 'bundled'),
    Question('which tty is the header serial on a pi 4 by default', (), 'rpi-4b.md', '(uart1, /dev/ttyS0)',
             'bundled'),
    # rpi-5
    Question('pi 5 usb drives underpowered, what power supply do i need', (), 'rpi-5.md',
             '27 W (5 V 5 A) USB-C supply', 'bundled'),
    Question('my old register-level gpio library cant toggle pins on the pi 5', (), 'rpi-5.md',
             'poke /dev/gpiomem directly', 'bundled'),
    # rpi-gpio
    Question('raspberry pi spi device file for the second chip select', (), 'rpi-gpio.md',
             '/dev/spidev0.1 (CE1)', 'bundled'),
    # rpi-pico
    Question('pico max cpu clock', (), 'rpi-pico.md', 'dual Cortex-M0+ at 133 MHz', 'bundled'),
    Question('pico sdk default spi chip select pin', (), 'rpi-pico.md', 'CS GP17 (pin 22)', 'bundled'),
)
