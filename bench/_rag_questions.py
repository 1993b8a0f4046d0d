"""Field-engineer questions against ../shared/corpus/datasheets, with the file and fact that answer them.

A result counts as a hit when it comes from `source` (alternatives separated by `|`) and its text
contains `fact` (case-insensitive). `corpus` names the datasheet directory: "shared" is
../shared/corpus/datasheets, "bundled" the datasheets shipped in the package.
This is the tuning set: ranking changes are tried against it. The held-out set in
bench/_rag_heldout.py is only measured, never tuned on.
Questions are paraphrased on purpose: they rarely reuse the datasheet's own wording.
"""

from __future__ import annotations

from typing import NamedTuple


class Question(NamedTuple):
    text: str
    boards: tuple[str, ...]
    source: str
    fact: str
    corpus: str = "shared"


QUESTIONS: tuple[Question, ...] = (
    # sensors and parts, no board scope
    Question("what does the chip-id register of a BME280 return?", (), "bme280.md", "0x60"),
    Question("how do I tell a BMP280 from a BME280 in software", (), "bme280.md", "0x58"),
    Question("bme280 soft reset value", (), "bme280.md", "0xB6"),
    Question("BME280 humidity oversampling setting does not take effect", (), "bme280.md", "ctrl_meas"),
    Question("which I2C address does the BME280 use when SDO is tied to ground", (), "bme280.md", "0x76"),
    Question("WHO_AM_I value of the MPU6050 at address 69h", (), "mpu6050.md", "0x68"),
    Question("mpu-6050 gyro full scale range register", (), "mpu6050.md", "GYRO_CONFIG"),
    Question("SHT31 single shot measurement command without clock stretching", (), "sht31.md", "0x2400"),
    Question("sht31 default i2c addr", (), "sht31.md", "0x44"),
    Question("ADS1115 address when ADDR is strapped to SDA", (), "ads1115.md", "0x4A"),
    Question("ads1115 programmable gain full-scale ranges", (), "ads1115.md", "4.096"),
    Question("SSD1306 128x64 display stays blank, which address", (), "ssd1306.md", "0x3D"),
    Question("ssd1306 control byte for display data", (), "ssd1306.md", "0x40"),
    Question("PCA9685 register that sets the PWM frequency", (), "pca9685.md", "PRE_SCALE"),
    Question("pca9685 all call address conflict", (), "pca9685.md", "0x70"),
    Question("how often does the DS3231 update its temperature reading", (), "ds3231.md", "64 s"),
    Question("DS3231 oscillator stop flag bit", (), "ds3231.md", "OSF"),
    Question("two devices answering at 0x68 on one bus, RTC and IMU", (), "generic-i2c-addresses.md", "AD0 high"),
    Question("can a PiGlow and an Automation HAT be stacked on the same I2C bus", (), "generic-i2c-addresses.md",
             "0x54"),
    Question("level shifting I2C between 5V and 3.3V parts", (), "generic-logic-levels.md", "BSS138"),
    # Raspberry Pi boards and HATs
    Question("which header pins are I2C1 SDA and SCL on a raspberry pi", ("rpi-4b",), "rpi-gpio.txt", "pin 3"),
    Question("what physical pin is BCM17", ("rpi-4b",), "rpi-gpio.txt", "11"),
    Question("enable the one-wire bus on another GPIO", ("rpi-4b",), "rpi-gpio.txt", "gpiopin="),
    Question("hardware PWM channel pins and overlay", ("rpi-4b",), "rpi-gpio.txt", "pwm-2chan"),
    Question("are the pi gpio pins 5 volt tolerant", (), "rpi-gpio.txt", "NOT 5 V tolerant"),
    Question("pi 4 extra i2c buses, which GPIO pairs", ("rpi-4b",), "rpi-4b.md", "i2c4"),
    Question("enable uart3 on the Pi 4 header", ("rpi-4b",), "rpi-4b.md", "dtoverlay=uart3"),
    Question("Pi 4 GPIO input high threshold voltage", ("rpi-4b",), "rpi-4b.md", "2.0 V"),
    Question("RP1 alternate function names on the Pi 5", ("rpi-5",), "rpi-5.md", "F0 to F8"),
    Question("where is the serial console on a Raspberry Pi 5", ("rpi-5",), "rpi-5.md", "debug connector"),
    Question("sense hat i2c addresses seen by i2cdetect", (), "sense-hat.md", "0x5c"),
    Question("which pins does the PMS5003 particulate sensor use on the enviro plus", (), "enviro-plus.md",
             "GPIO14"),
    Question("traffic hat buzzer gpio", (), "traffic-hat.md", "GPIO5"),
    Question("fan shim fan control pin conflicts with I2S audio", (), "fan-shim.md", "GPIO18"),
    Question("blinkt stays dark which 5V pin", (), "blinkt.md", "pin 4"),
    # microcontroller boards
    Question("which pin is the user LED on this nucleo", ("nucleo-f401re",), "nucleo-f401re.md", "PA5"),
    Question("user button pin and polarity", ("nucleo-f401re",), "nucleo-f401re.md", "PC13"),
    Question("arduino I2C pins on the nucleo f401re", ("nucleo-f401re",), "nucleo-f401re.md", "PB9"),
    Question("free D0 D1 for a shield serial link solder bridges", ("nucleo-f401re",), "nucleo-f401re.md", "SB62"),
    Question("system clock PLL settings f401", ("nucleo-f401re",), "nucleo-f401re.md", "84 MHz"),
    Question("what is the user LED called on the g071rb", ("nucleo-g071rb",), "nucleo-g071rb.md", "LD4"),
    Question("nucleo l476rg i2c3 pins", ("nucleo-l476rg",), "nucleo-l476rg.md", "PC0"),
    Question("uno flash size available for sketches", ("arduino-uno",), "arduino-uno.md", "32256"),
    Question("uno pin change interrupt groups", ("arduino-uno",), "arduino-uno.md", "PCMSK"),
    Question("Mega 2560 I2C pins, shield does not work", (), "arduino-mega2560.md", "D20"),
    Question("esp32 pins that are input only", ("esp32-devkitc",), "esp32-devkitc.md", "GPIO34"),
    Question("esp32 ADC not working with wifi enabled", ("esp32-devkitc",), "esp32-devkitc.md", "ADC2"),
    Question("esp32 devkitc default VSPI pins", ("esp32-devkitc",), "esp32-devkitc.md", "GPIO23"),
    Question("pico onboard led gpio", ("rpi-pico",), "rpi-pico.md", "GP25"),
    Question("pico sdk default i2c pins", ("rpi-pico",), "rpi-pico.md", "GP4"),
    Question("how much current can the pico 3v3 output supply", ("rpi-pico",), "rpi-pico.md|generic-logic-levels.md",
             "300 mA"),
    Question("nrf52840 dk led0 is which printed LED", (), "nrf52840dk.md", "P0.13"),
    Question("Arduino header SPI pins across boards D11 D12 D13", (), "generic-arduino-r3-header.md", "MOSI"),
)
