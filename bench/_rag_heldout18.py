"""Eighteenth held-out set: sealed, measured only by the final full bench run, never tuned on.

Written from the datasheets (../shared/corpus/datasheets and the bundled datasheets/) at the start of its round, before
any ranking or pin-rule change, by someone who neither saw the search, the ranker or the resolver nor read an earlier
set, in a field engineer's words: about a third pin, header and wiring lookups (chip pins as the only hint of the board,
two-pair rows, the shared Pi header), a third register, address and value facts, a third symptoms and how-to, other
words than the datasheets' own throughout, and 16 questions with a board configured and none named. Every file of
both directories is asked about. Each question has one answering file, and its fact is written on one line of that
file and in no other file of the material. Questions worded exactly as an earlier set's were taken out (3 of 110).
bench/rag.py ranks it only when asked for the sealed sets (the full run that writes BENCHMARKS.md). Same hit rule as
the other sets.
"""

from __future__ import annotations

from bench._rag_questions import Question

HELD_OUT_18: tuple[Question, ...] = (
    # ads1115
    Question('ads1115 pga code for a +-4v input range', (), 'ads1115.md', '001 +/-4.096 V'),
    Question('ads1115 with ADDR strapped to SCL, what address do i scan for', (), 'ads1115.md', 'SCL | 0x4B'),
    Question('want an interrupt when the 16 bit adc finishes instead of polling OS bit',
             (), 'ads1115.md', 'conversion-ready signal'),
    # arduino-mega2560
    Question('shield spi on d11-d13 is dead, where is the spi bus',
             ('arduino-mega2560',), 'arduino-mega2560.md', 'SPI is on D50-D53'),
    Question('softwareserial rx on pin 8 of a mega receives nothing',
             (), 'arduino-mega2560.md', 'SoftwareSerial RX) only work on D10-D13'),
    Question('attachInterrupt number for pin 19 on mega2560', (), 'arduino-mega2560.md', 'D19 -> 4'),
    # arduino-nano
    Question('clone nano upload fails with not in sync error', (), 'arduino-nano.md', 'so avrdude talks at 57600 baud'),
    Question('digitalRead(A7) on nano gives junk, pinMode does nothing',
             (), 'arduino-nano.md', 'ADC7 | analog input only'),
    Question('largest sketch for an old nano with the atmega168',
             (), 'arduino-nano.md', '14336 bytes (1024 bytes SRAM)'),
    # arduino-uno
    Question('pwm on pin 9 and 10 quit after i included Servo.h',
             (), 'arduino-uno.md', 'Servo library takes over Timer1'),
    Question('uno: which timer output compare drives pwm on D3', (), 'arduino-uno.md', 'Timer2 B (OC2B)'),
    Question('usb vendor and product id of a genuine uno r3', (), 'arduino-uno.md', 'VID 0x2341, PID 0x0043'),
    # automation-hat
    Question('automation hat relay three, which bcm gpio', (), 'automation-hat.md', 'Relay 3 | 36 | GPIO16'),
    Question('buffered input 3 on the 24v pimoroni automation board, header pin?',
             (), 'automation-hat.md', 'Input 3 | 40 | GPIO21'),
    Question('what is sitting at 0x48 on the automation hat',
             (), 'automation-hat.md', 'analog inputs (24 V tolerant channels)'),
    # blinkt
    Question('new blinkt stays completely dark, which 5v pin feeds it',
             (), 'blinkt.md', '5 V power (all boards made since 2018)'),
    Question('apa102 clock line on the 8 led pimoroni strip', (), 'blinkt.md', 'GPIO24 | APA102 clock (CLK)'),
    Question('blinkt far too bright on a weak supply, python call to dim it', (), 'blinkt.md', 'set_brightness(0.1)'),
    # bme280
    Question('changed humidity oversampling but nothing happens on the bme280',
             (), 'bme280.md', 'ctrl_hum (0xF2) only takes effect after'),
    Question('bme280 t_sb 110 standby time', (), 'bme280.md', '110 | 10 ms'),
    Question('register holding dig_H4 on the bme', (), 'bme280.md', 'dig_H4 (0xE4)'),
    # bmp280
    Question('bmp280 id register gives 0x56, is my sensor broken',
             (), 'bmp280.md', 'engineering samples returned 0x56 or 0x57'),
    Question('sea level reference readAltitude uses unless told otherwise',
             (), 'bmp280.md', '1013.25 hPa sea-level pressure'),
    Question('bmp280 config filter bits for coefficient 16', (), 'bmp280.md', '011 x8, 100 x16'),
    # ds3231
    Question('rtc lostPower() true after every power cycle, which flag is it reading',
             (), 'ds3231.md', 'bit 7 of register 0x0F'),
    Question('ds3231 control register value for a 1hz square wave', (), 'ds3231.md', '1 Hz | 0x00'),
    Question('INT/SQW pin never toggles on the scope, rtc otherwise fine',
             (), 'ds3231.md', 'INT/SQW is open-drain and needs a pull-up'),
    # enviro-phat
    Question('enviro phat analog chip shows at 0x48 not 0x49', (), 'enviro-phat.md', 'ADC was a 3.3 V 12-bit part'),
    Question('can the enviro phat analog inputs take 5v signals', (), 'enviro-phat.md', '12-bit, inputs tolerate 5 V'),
    Question('which gpio switches the two white leds beside the light sensor',
             (), 'enviro-phat.md', 'illumination LEDs enable (output)'),
    # enviro-plus
    Question('enviro+ pms5003 reset line gpio', (), 'enviro-plus.md', 'GPIO27 | PMS5003 reset'),
    Question('lcd data/command select pin on the enviroplus board',
             (), 'enviro-plus.md', 'GPIO9 | LCD data/command (D/C) select'),
    Question('MICS6814 heater gets switched by which bcm line',
             (), 'enviro-plus.md', 'GPIO24 | gas sensor heater enable'),
    # esp32-devkitc
    Question('module never boots while my sensor pulls IO12 high',
             (), 'esp32-devkitc.md', '3.3 V flash and prevents booting'),
    Question('capacitive touch channel number on GPIO27', (), 'esp32-devkitc.md', 'TOUCH7 | GPIO27'),
    Question('default hspi pins in zephyr for spi2',
             ('esp32-devkitc',), 'esp32-devkitc.md', 'MOSI GPIO13, SCLK GPIO14'),
    Question('which header pin gives true analog out, dac channel 1',
             ('esp32-devkitc',), 'esp32-devkitc.md', 'GPIO25, ADC2_CH8, DAC_1'),
    # explorer-hat-pro
    Question('explorer hat pro motor 2 minus terminal gpio', (), 'explorer-hat-pro.md', 'Motor 2 - | 37 | GPIO26'),
    Question('explorer hat input one and two seem swapped on the header',
             (), 'explorer-hat-pro.md', 'Input 1 is on pin 16'),
    Question('i2c address of the touch pad chip on explorer hat',
             (), 'explorer-hat-pro.md', 'capacitive touch controller (pads 1-8)'),
    # fan-shim
    Question('fan shim tactile switch input pin', (), 'fan-shim.md', 'GPIO17 | tactile button'),
    Question('fan shim rgb led does nothing while serial console is on',
             (), 'fan-shim.md', 'which are the UART TX/RX pins'),
    # generic-arduino-r3-header
    Question('arduino_header gpio-map index for D13 in a shield overlay',
             (), 'generic-arduino-r3-header.md', 'D13 | 19'),
    Question('compatible string of the uno r3 connector node in zephyr',
             (), 'generic-arduino-r3-header.md', 'compatible = "arduino-header-r3"'),
    Question('how does a shield know whether the host board is 3.3v or 5v',
             (), 'generic-arduino-r3-header.md', 'should read IOREF to select'),
    # generic-i2c-addresses
    Question('zephyr shell way to list devices on an i2c bus',
             (), 'generic-i2c-addresses.md', '`i2c scan` shell command'),
    Question('arduino i2c_scanner sketch, which address range does it probe',
             (), 'generic-i2c-addresses.md', 'looping over addresses 1-126'),
    Question('datasheet says address 0x78 but the scanner only finds 0x3c',
             (), 'generic-i2c-addresses.md', '(0x3C becomes 0x78)'),
    # generic-logic-levels
    Question('mpu-6050 supply voltage range, ok straight from a 5v arduino?',
             (), 'generic-logic-levels.md', '2.375 V to 3.46 V'),
    Question('resistor divider values for 5v uart tx into a 3.3v rx',
             (), 'generic-logic-levels.md', '1 kOhm over 2 kOhm'),
    # mpu6050
    Question('mpu6050 every accel and gyro register reads 0', (), 'mpu6050.md', 'the device starts in sleep mode'),
    Question('WHO_AM_I still 0x68 even with AD0 tied high',
             (), 'mpu6050.md', 'reports the upper six address bits only'),
    Question('gyro lsb per deg/s at the 500 dps range', (), 'mpu6050.md', '+/-500 deg/s | 65.5'),
    # nrf52840dk
    Question('led0 in zephyr lights which pin, silkscreen says LED1',
             ('nrf52840dk',), 'nrf52840dk.md', 'P0.13 | led0 (label "Green LED 0")'),
    Question('nrf52840 dk looking for P1.09 on the arduino header for D8',
             (), 'nrf52840dk.md', 'there is no P1.09 on the header'),
    Question('part number of the external qspi flash on the nordic dk',
             (), 'nrf52840dk.md', 'MX25R6435F 64 Mbit flash'),
    # nucleo-f401re
    Question('user button reads 1 idle, what level when pressed',
             ('nucleo-f401re',), 'nucleo-f401re.md', 'blue push button, active low'),
    Question('f401re pll M N P values for 84 mhz from the stlink clock', (), 'nucleo-f401re.md', '(M=8, N=336, P=4)'),
    Question('shield serial on D0/D1 gets nothing, stlink holds that uart',
             ('nucleo-f401re',), 'nucleo-f401re.md', 'open SB13/SB14'),
    # nucleo-f446re
    Question('f446re i2c on D14/D15 died after turning on can1',
             (), 'nucleo-f446re.md', 'I2C1 and CAN1 cannot be active together'),
    Question('sysclk zephyr actually configures on the f446re', (), 'nucleo-f446re.md', 'SYSCLK 96 MHz'),
    Question('morpho position D39 dead on f446 but works on f401',
             (), 'nucleo-f446re.md', 'PB11 does not exist on the STM32F446RE'),
    # nucleo-g071rb
    Question('D0/D1 on the header go to which usart and pins',
             ('nucleo-g071rb',), 'nucleo-g071rb.md', 'D0/D1 are PC5/PC4 on USART1'),
    Question('analog out dac pin on nucleo g071', (), 'nucleo-g071rb.md', 'DAC1 OUT1 | PA4'),
    # nucleo-l476rg
    Question('zephyr controller for i2c on A4 and A5',
             ('nucleo-l476rg',), 'nucleo-l476rg.md', 'these are Arduino A5 / A4'),
    Question('samples using pwm-led0 fail to build for l476rg', (), 'nucleo-l476rg.md', 'defines no pwm-led0 alias'),
    Question('l476 zephyr storage partition address at end of flash', (), 'nucleo-l476rg.md', '0x000F8000'),
    # pca9685
    Question('pca9685 prescale for 50 hz hobby servos', (), 'pca9685.md', '50 Hz (prescale 121)'),
    Question('writes to 0xFE ignored, servo frequency never changes',
             (), 'pca9685.md', 'PRE_SCALE can only be written while'),
    # piglow
    Question('piglow pwm registers written but leds stay the same',
             (), 'piglow.md', 'until the update register is written'),
    Question('sn3218 value to enable all channels in the led control regs', (), 'piglow.md', 'write 0x3F to 0x13'),
    # rpi-4b
    Question('uart3 lands on which header pins', ('rpi-4b',), 'rpi-4b.md', 'GPIO4 (pin 7) | GPIO5 (pin 29)'),
    Question('pi 4 serial baud drifts on pins 8/10 when the cpu clock changes',
             (), 'rpi-4b.md', 'baud rate follows the VPU core clock'),
    Question('bcm2711 alt4 on GPIO24', (), 'rpi-4b.md', 'SD1 DAT0 | JTAG TDO'),
    # rpi-5
    Question('no serial console on header pins 8 and 10 anymore',
             ('rpi-5',), 'rpi-5.md', 'UART header between the HDMI ports'),
    Question('name of the uart on GPIO8 and GPIO9 under rp1', ('rpi-5',), 'rpi-5.md', 'uart3 | GPIO8 | GPIO9'),
    Question('rp1 function number for uart0 txd on gpio14', (), 'rpi-5.md', 'is F4 on RP1, not F0'),
    # rpi-gpio
    Question('wiringpi pin 0 maps to which bcm gpio', (), 'rpi-gpio.txt', '(WPI0 = GPIO17)'),
    Question('make GPIO12 an output driven high at boot from config.txt', (), 'rpi-gpio.txt', '`gpio=12=op,dh`'),
    Question('third chip select of the aux spi bus', ('rpi-zero-2w',), 'rpi-gpio.txt', 'CE2: GPIO16, pin 36'),
    # rpi-pico
    Question('default i2c sda gp number in pico-sdk', ('rpi-pico',), 'rpi-pico.md', 'PICO_DEFAULT_I2C_SDA_PIN | 4'),
    Question('GP17 uart and i2c functions', ('rpi-pico',), 'rpi-pico.md', 'GP17 | SPI0 CSn | I2C0 SCL | UART0 RX'),
    Question('rp2040 board: cut power to the 3v3 regulator output',
             (), 'rpi-pico.md', 'switch the 3.3 V regulator off'),
    # sense-hat
    Question('sense hat temperature reads way above room temperature',
             (), 'sense-hat.md', 'mount it on an extension cable'),
    Question('addresses i2cdetect should list with the astro pi hat fitted',
             (), 'sense-hat.md', '0x1c, 0x46, 0x5c, 0x5f and 0x6a'),
    Question('attiny88 programming reset, which bcm pin on the sense hat',
             (), 'sense-hat.md', 'GPIO25 | Atmel programming reset'),
    # sht31
    Question('sht31 crc check fails, what init value and xor', (), 'sht31.md', 'initial value 0xFF, no final XOR'),
    # ssd1306
    Question('128x64 oled module stays blank with adafruit begin()',
             (), 'ssd1306.md', 'strapped to 0x3C often stay blank'),
    Question('oled acks every byte yet the screen remains black',
             (), 'ssd1306.md', 'charge pump must be enabled (0x8D, 0x14)'),
    Question('ssd1306 com pins config byte for a 32 row panel', (), 'ssd1306.md', '0x02 for 128x32, 0x12 for 128x64'),
    Question('control byte to send before pixel data over i2c', (), 'ssd1306.md', 'Co=0, D/C#=1'),
    # traffic-hat
    Question('traffic hat amber led bcm number', (), 'traffic-hat.md', 'LED2 / Amber | 16 | GPIO23'),
    Question('traffic lights hat plus blinkt on one pi, leds go haywire',
             (), 'traffic-hat.md', 'exactly the two lines a Blinkt! uses'),
    # unicorn-hat
    Question('3.5mm audio stops working with the 8x8 ws2812 hat',
             (), 'unicorn-hat.md', 'uses for its analogue audio jack'),
    Question('unicorn hat neopixel data header pin', (), 'unicorn-hat.md', 'WS2812 data (driven by PWM + DMA)'),
    # arduino-uno
    Question('is there a user pushbutton on the uno i can read',
             (), 'arduino-uno.md', 'no user button, only RESET', 'bundled'),
    # bme280
    Question('bme280 forced mode: when is the result ready to read',
             (), 'bme280.md', 'poll status bit 3 until it clears', 'bundled'),
    Question('lga package pin 5 of the bme280', (), 'bme280.md', 'SDO | 5 | I2C address select', 'bundled'),
    # generic-i2c-addresses
    Question('bosch datasheet lists 0xEC as address, what 7-bit value',
             (), 'generic-i2c-addresses.md', '0xEC >> 1 = 0x76', 'bundled'),
    Question('pull-up value for a 400 khz i2c bus', (), 'generic-i2c-addresses.md', '2.2 kOhm at 400 kHz', 'bundled'),
    # generic-logic-levels
    Question('current through an led with 330 ohm at 3.3v',
             (), 'generic-logic-levels.md', '330 Ohm is about 4 mA', 'bundled'),
    # generic-pin-names
    Question('what does the status_led alias resolve to',
             (), 'generic-pin-names.md', 'status_led: LED_BUILTIN', 'bundled'),
    # nucleo-f401re
    Question('blink the red led, which gpio drives it',
             ('nucleo-f401re',), 'nucleo-f401re.md', 'There is no red user LED', 'bundled'),
    # nucleo-l476rg
    Question('measure mcu supply current on the l476 nucleo, where',
             (), 'nucleo-l476rg.md', 'Measure current on JP6 (IDD)', 'bundled'),
    # rpi-4b
    Question('green activity led is on which gpio', ('rpi-4b',), 'rpi-4b.md', 'driven by BCM GPIO42', 'bundled'),
    # rpi-5
    Question('usb ports capped at low current, what psu unlocks 1.6 A', (), 'rpi-5.md', '27 W (5 V 5 A)', 'bundled'),
    # rpi-gpio
    Question('spidev0.1 uses which chip select', (), 'rpi-gpio.md', '/dev/spidev0.1 (CE1)', 'bundled'),
)
