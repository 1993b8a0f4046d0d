"""Seventeenth held-out set: sealed in its round and measured once at its end; seen since, now a former held-out set.

Written from the datasheets (../shared/corpus/datasheets and the bundled datasheets/) at the start of its round, before
any ranking change, by someone who neither saw the search, the ranker or the resolver nor read an earlier set, in a
field engineer's words: about a fifth symptoms whose answer is a cause or fix, a fifth pin-table, header and bus
lookups (the second pair of two-pair rows among them), chip pins or part numbers as the only hint of the file,
register, value, address and timing facts, other words for datasheet terms, and 16 questions with a board configured
and none named. Every file of both directories is asked about. Each question has one answering file, and its fact is
written on one line of that file and in no other file of the material. Questions worded exactly as an earlier set's
were taken out (3 of 110). Read once at the end of its round: 0.869 / 0.981 / 0.991 (93 first answers of 107; the
reference 0.720), and 0.860 on hit@1 with one typing slip in each question holding a word of six letters or more
(0.870 as written). bench/rag.py now measures it in every run with the other former held-out sets (held-out 18 is the
sealed set). Same hit rule as the other sets.
"""

from __future__ import annotations

from bench._rag_questions import Question

HELD_OUT_17: tuple[Question, ...] = (
    # ads1115
    Question('ads1015 values come out 16 times too large, do i need to shift them',
             (), 'ads1115.md', 'shift right by 4.'),
    Question('fastest sampling rate i can configure on the ads1115', (), 'ads1115.md', '860 SPS'),
    Question('how do i turn the alert pin of the ads1115 into a conversion done signal',
             (), 'ads1115.md', 'Hi_thresh MSB to 1 and Lo_thresh MSB to 0'),
    # arduino-mega2560
    Question('i2c shield that used A4 and A5 gets no response after i moved it over',
             ('arduino-mega2560',), 'arduino-mega2560.md', 'D20 (SDA) / D21 (SCL)'),
    Question('PL3 port pin, which digital pin number is that in a sketch', (), 'arduino-mega2560.md', 'D46 | PL3'),
    Question('which pins on the mega can softwareserial receive on',
             (), 'arduino-mega2560.md', 'SoftwareSerial RX) only work on D10-D13'),
    # arduino-nano
    Question('clone nano upload fails with not in sync errors',
             (), 'arduino-nano.md', 'so avrdude talks at 57600 baud'),
    Question('pinMode and digitalRead on A6 do nothing, is the pin broken',
             ('arduino-nano',), 'arduino-nano.md', 'A6 and A7 are dedicated ADC channels'),
    Question('largest sketch that fits on an old atmega168 board with the 19200 baud bootloader',
             (), 'arduino-nano.md', '14336 bytes'),
    # arduino-uno
    Question('usb vendor id and product id for a udev rule',
             ('arduino-uno',), 'arduino-uno.md', 'VID 0x2341, PID 0x0043'),
    Question('which timer does the servo library take over on the uno, and which pwm pins does it kill',
             (), 'arduino-uno.md', 'Servo library takes over Timer1'),
    Question('which timer generates the pwm on PD6', (), 'arduino-uno.md', 'Timer0 A (OC0A)'),
    Question('total current all io pins of the uno can handle together',
             (), 'arduino-uno.md', 'total for the chip 200 mA', 'bundled'),
    # automation-hat
    Question('which bcm gpio switches relay 3 on the automation hat',
             (), 'automation-hat.md', '| Relay 3 | 36 | GPIO16'),
    Question('can i wire 24 volt sensor signals into the automation hat analog inputs',
             (), 'automation-hat.md', 'all rated for 24 V systems'),
    # blinkt
    Question('blinkt stays completely dark even though the script runs', (), 'blinkt.md', 'try the other 5 V pin'),
    Question('header pin used for the clock line of the blinkt leds', (), 'blinkt.md', '| 18 | GPIO24 | APA102 clock'),
    # bme280
    Question('bme280 raw humidity is stuck at 0x8000', (), 'bme280.md', '0x8000 means humidity was disabled'),
    Question('smoothing filter bits set to 011 on the bme280, what coefficient is that',
             (), 'bme280.md', '| 011 | x4 | 8'),
    Question('at which register address is the dig_H4 calibration value on the bme280',
             (), 'bme280.md', 'dig_H4 (0xE4)'),
    # bmp280
    Question('my bmp280 chip id reads 0x57, did i get a fake', (), 'bmp280.md', 'samples returned 0x56 or 0x57'),
    Question('what sea level pressure does readAltitude use by default on the bmp280',
             (), 'bmp280.md', 'assumes 1013.25 hPa sea-level pressure'),
    # ds3231
    Question('ds3231 rtc forgets the time and lostPower() keeps returning true',
             (), 'ds3231.md', 'bit 7 of register 0x0F'),
    Question('value to write to switch off the square wave output on the rtc clock chip',
             (), 'ds3231.md', 'DS3231_OFF | 0x1C'),
    Question('how often does the ds3231 refresh its temperature register', (), 'ds3231.md', 'every 64 s by the TCXO'),
    # enviro-phat
    Question('enviro phat analog readings fail at 0x49 but i2cdetect shows 0x48',
             (), 'enviro-phat.md', '12-bit part answering at 0x48'),
    Question('which gpio turns on the white illumination leds of the enviro phat',
             (), 'enviro-phat.md', '| 7 | GPIO4 | illumination LEDs enable'),
    # enviro-plus
    Question('which gpio is the lcd data/command line on the enviro plus',
             (), 'enviro-plus.md', 'GPIO9 | LCD data/command'),
    Question('pms5003 on the enviro+ returns no data even though it is plugged in',
             (), 'enviro-plus.md', 'turn off the serial login shell'),
    Question('MICS6814 heater enable gpio', (), 'enviro-plus.md', 'GPIO24 | gas sensor heater enable'),
    # esp32-devkitc
    Question('which pin has the true analog output, dac channel 1',
             ('esp32-devkitc',), 'esp32-devkitc.md', 'GPIO25, ADC2_CH8, DAC_1'),
    Question('what is on pin 10 of header J3 of the esp32 devkitc',
             (), 'esp32-devkitc.md', 'GPIO5 (VSPI CS, strapping)'),
    Question('early v4 devkitc keeps dropping into download mode on reset',
             (), 'esp32-devkitc.md', 'C15 capacitor on early V4 boards'),
    Question('are gpio16 and gpio17 usable on a devkitc fitted with a wrover module',
             (), 'esp32-devkitc.md', 'they are taken by the PSRAM'),
    Question('the left header on the EN button side, what is it called',
             ('esp32-devkitc',), 'esp32-devkitc.md', 'J2 (left, EN side)', 'bundled'),
    # explorer-hat-pro
    Question('explorer hat pro input 2 is on which physical header pin',
             (), 'explorer-hat-pro.md', '| Input 2 | 15 | GPIO22'),
    Question('can i use the explorer hat motors together with an i2s dac',
             (), 'explorer-hat-pro.md', 'motor pins overlap the PCM/I2S audio pins'),
    # fan-shim
    Question('which gpios does the fan shim rgb led use', (), 'fan-shim.md', 'The LED uses GPIO14 and GPIO15'),
    # generic-arduino-r3-header
    Question('zephyr arduino_header index number for D12 in a shield overlay',
             (), 'generic-arduino-r3-header.md', 'D12 | 18'),
    Question('compare the mcu pin behind A3 on uno, nucleo and the nrf52840 dk',
             (), 'generic-arduino-r3-header.md', '| A3 | PC3 | PB0 | PB1 | P0.29'),
    Question('will an old 5v shield damage a 3.3v board, what is IOREF for',
             (), 'generic-arduino-r3-header.md', 'will over-drive 3.3 V-only boards'),
    # generic-i2c-addresses
    Question('how do i scan the i2c bus from the zephyr shell',
             (), 'generic-i2c-addresses.md', 'i2c scan i2c@40005400'),
    Question('default clock speed of the arduino wire i2c bus',
             (), 'generic-i2c-addresses.md', 'Standard mode | 100 kHz'),
    Question('explorer hat already uses 0x48, where do i strap an extra ads1115 breakout',
             (), 'generic-i2c-addresses.md', 'be strapped to 0x4A (ADDR to SDA)'),
    Question('datasheet says address 0xEC, what is that as a 7-bit i2c address',
             (), 'generic-i2c-addresses.md', '0xEC >> 1 = 0x76', 'bundled'),
    # generic-logic-levels
    Question('ws2812 strip on 5 v ignores the 3.3 v data line, what fixes it',
             (), 'generic-logic-levels.md', 'a 74AHCT125 buffer'),
    Question('can a bare mpu-6050 run from 5 v on an arduino',
             (), 'generic-logic-levels.md', 'GY-521 modules carry a 3.3 V regulator'),
    Question('supply voltage range of the oled controller logic', (), 'generic-logic-levels.md', '1.65 V to 3.3 V'),
    Question('roughly how much current flows through a 330 ohm led resistor from a 3.3 v pin',
             (), 'generic-logic-levels.md', '/ 330 Ohm is about 4 mA', 'bundled'),
    # generic-pin-names
    Question('can i use status_led as a name for the board led',
             (), 'generic-pin-names.md', 'status_led: LED_BUILTIN', 'bundled'),
    # mpu6050
    Question('mpu6050 returns all zeros for accel and gyro',
             (), 'mpu6050.md', 'starts in sleep mode (PWR_MGMT_1 = 0x40)'),
    Question('gyro sensitivity in lsb per degree per second at the 500 dps range',
             (), 'mpu6050.md', '+/-500 deg/s | 65.5'),
    # nrf52840dk
    Question('blinky with led0 lights the wrong led, which one is it on the silkscreen',
             ('nrf52840dk',), 'nrf52840dk.md', 'is the LED printed LED1 (P0.13)'),
    Question('P1.08 is which arduino header position', (), 'nrf52840dk.md', '| D7 | P1.08'),
    Question('enabled i2c1 on the nrf52840 dk and spi1 stopped working',
             (), 'nrf52840dk.md', 'cannot be used together with spi1'),
    Question('what are P0.09 and P0.10 wired to', (), 'nrf52840dk.md', 'P0.09/P0.10 are the NFC antenna'),
    # nucleo-f401re
    Question('pll divider values that give the 84 mhz system clock',
             ('nucleo-f401re',), 'nucleo-f401re.md', '(M=8, N=336, P=4)'),
    Question('shield serial on D0/D1 of the f401 nucleo gets nothing, which solder bridges',
             (), 'nucleo-f401re.md', 'serial link, open SB13/SB14'),
    Question('which arduino pin carries I2C2 SCL on the f401re', (), 'nucleo-f401re.md', 'TIM2_CH3, I2C2 SCL'),
    Question('what device name does the virtual com port get on linux',
             ('nucleo-f401re',), 'nucleo-f401re.md', 'shows up as /dev/ttyACM0 on Linux', 'bundled'),
    Question('red_led alias on the nucleo f401re blinks a green light, is there a red user led',
             (), 'nucleo-f401re.md', 'There is no red user LED', 'bundled'),
    # nucleo-f446re
    Question('why does zephyr clock the core at only 96 mhz', ('nucleo-f446re',), 'nucleo-f446re.md', 'SYSCLK 96 MHz'),
    Question('which solder bridges connect PC14, PC15 and PH0 to the morpho header on the f446re',
             (), 'nucleo-f446re.md', 'SB49, SB48 and SB55 open'),
    Question('testing backup sram on vbat alone, which solder bridge do i remove on the f446 nucleo',
             (), 'nucleo-f446re.md', 'remove solder bridge SB45'),
    Question('is morpho CN10-18 connected to anything on the f446 nucleo',
             (), 'nucleo-f446re.md', 'morpho CN10-18 is unconnected', 'bundled'),
    # nucleo-g071rb
    Question('where does zephyr place the storage partition in flash',
             ('nucleo-g071rb',), 'nucleo-g071rb.md', '0x0001F000'),
    Question('morpho pins for the second i2c bus on the nucleo g071rb', (), 'nucleo-g071rb.md', 'PA11 / PA12'),
    Question('does the stm32g071 have a hardware floating point unit', (), 'nucleo-g071rb.md', 'Cortex-M0+ (no FPU)'),
    # nucleo-l476rg
    Question('blinky_pwm build fails with no pwm-led0 alias',
             ('nucleo-l476rg',), 'nucleo-l476rg.md', 'defines no pwm-led0 alias'),
    Question('which CN7 morpho pins carry spi3 on the l476rg nucleo',
             (), 'nucleo-l476rg.md', 'morpho CN7 pins 17, 1, 2, 3'),
    Question('max sampling rate of the stm32l476 adcs', (), 'nucleo-l476rg.md', '12-bit ADC at 5 Msps'),
    Question('where do i measure the mcu supply current on the l476 nucleo',
             (), 'nucleo-l476rg.md', 'Measure current on JP6 (IDD)', 'bundled'),
    # pca9685
    Question('prescale value for 50 hz hobby servos on the pca9685', (), 'pca9685.md', '50 Hz (prescale 121)'),
    Question('pi reboots whenever the servos on the servo hat start moving',
             (), 'pca9685.md', 'servo current spikes reset the Pi'),
    # piglow
    Question('piglow leds do not change after i wrote the brightness values',
             (), 'piglow.md', 'until the update register is written'),
    Question('SN3218 value to write to the led control registers to enable all channels',
             (), 'piglow.md', 'write 0x3F to 0x13'),
    # rpi-4b
    Question('exact dtoverlay line for a second i2c bus on gpio6 and gpio7',
             ('rpi-4b',), 'rpi-4b.md', 'dtoverlay=i2c4,pins_6_7'),
    Question('how strong are the built-in pull resistors on the pi 4 gpio', (), 'rpi-4b.md', '33 to 73 kOhm'),
    Question('bcm2711 gpio22 which jtag signal can it be switched to',
             (), 'rpi-4b.md', '| 22 | SD0 CLK | SD1 CLK | JTAG TRST'),
    Question('enabled spi4 on my pi 4 and my device on spi0 ce1 stopped answering',
             (), 'rpi-4b.md', 'GPIO7 is also SPI0 CE1'),
    Question('which gpio drives the green activity light', ('rpi-4b',), 'rpi-4b.md', 'driven by BCM GPIO42', 'bundled'),
    # rpi-5
    Question('serial console no longer appears on header pins 8 and 10, where did it go',
             ('rpi-5',), 'rpi-5.md', 'UART header between the HDMI ports'),
    Question('how many hardware pwm channels does the RP1 give me',
             (), 'rpi-5.md', 'the RP1 PWM block has four channels'),
    Question('my pi 4 config used dtoverlay=uart3, which uart is that on the pi 5',
             (), 'rpi-5.md', 'GPIO6 | GPIO7 | uart3'),
    Question('old overlay requests function 2 on a pi 5, what does it actually select',
             (), 'rpi-5.md', 'selects F3 on a Pi 5'),
    Question('what power supply does the pi 5 need to give full current on its usb ports',
             (), 'rpi-5.md', '27 W (5 V 5 A) USB-C supply', 'bundled'),
    # rpi-gpio
    Question('put the 1-wire temperature sensor bus on header pin 11 instead of pin 7',
             ('rpi-zero-2w',), 'rpi-gpio.txt', 'dtoverlay=w1-gpio,gpiopin=17'),
    Question('wiringpi pin 0 maps to which bcm gpio on the raspberry pi', (), 'rpi-gpio.txt', 'WPI0 = GPIO17'),
    Question('moved hardware pwm to gpio12 on the pi, which func value do i pass',
             (), 'rpi-gpio.txt', 'func=4 when moving a channel to GPIO12'),
    Question('make a raspberry pi pin an output driven high at boot from config.txt',
             (), 'rpi-gpio.txt', 'gpio=12=op,dh'),
    Question('on the raspberry pi which spidev device file belongs to chip select ce1',
             (), 'rpi-gpio.md', '/dev/spidev0.1 (CE1)', 'bundled'),
    Question('which end of the pi board is header pin 1 on',
             (), 'rpi-gpio.md', 'square pad nearest the SD card end', 'bundled'),
    # rpi-pico
    Question('what is on physical pin 29 of the pico', (), 'rpi-pico.md', '29 | GP22'),
    Question('adc readings are noisy, can the regulator be switched to a lower ripple mode',
             ('rpi-pico',), 'rpi-pico.md', 'high = PWM, lower ripple'),
    Question('can GP13 act as a uart receive pin, which uart instance',
             (), 'rpi-pico.md', '| GP13 | SPI1 CSn | I2C0 SCL | UART0 RX'),
    Question('rp2040 spi pins are labelled tx and rx, which one is mosi',
             (), 'rpi-pico.md', '"TX" is controller-out (MOSI)'),
    Question('rp2040 clock speed and how much sram does it have', (), 'rpi-pico.md', '133 MHz, 264 KB SRAM', 'bundled'),
    # rpi-zero-2w
    Question('does the zero 2 w have a power led at all', (), 'rpi-zero-2w.md', 'There is no power LED', 'bundled'),
    # sense-hat
    Question('sense hat temperature reads several degrees too warm',
             (), 'sense-hat.md', 'mount it on an extension cable'),
    Question('which gpio resets the atmel controller on the sense hat',
             (), 'sense-hat.md', 'GPIO25 | Atmel programming reset'),
    # sht31
    Question('command to switch on the built-in heater of the sht31 to dry condensation',
             (), 'sht31.md', 'Heater enable | 0x306D'),
    Question('sht31 crc check keeps failing, which polynomial should i use', (), 'sht31.md', 'polynomial 0x31'),
    # ssd1306
    Question('128x64 oled stays blank with the adafruit library though the scanner finds 0x3C',
             (), 'ssd1306.md', '0x3D for all others'),
    Question('oled acknowledges every byte but the screen stays dark',
             (), 'ssd1306.md', 'charge pump must be enabled (0x8D, 0x14)'),
    Question('oled picture is upside down, which command flips it vertically',
             (), 'ssd1306.md', '0xC8 = remapped (flip vertically)'),
    # traffic-hat
    Question('which gpio drives the buzzer on the traffic hat', (), 'traffic-hat.md', '| Buzzer | 29 | GPIO5'),
    # unicorn-hat
    Question('unicorn hat script only works when i run it with sudo',
             (), 'unicorn-hat.md', 'needs root access to the PWM/DMA hardware'),
)
