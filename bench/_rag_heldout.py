"""Held-out ranking questions: measured, never tuned on.

Written before any ranking change and kept apart from the tuning set (bench/_rag_questions.py).
Ranking work may look at the tuning set's misses; it must not look at these. They are worded the
way a field engineer asks at the bench: informal board names, part numbers, symptoms, no
datasheet vocabulary where a plain word would do. `boards` is empty where the engineer would not
say which board is configured. Same hit rule as the tuning set.
"""

from __future__ import annotations

from bench._rag_questions import Question

HELD_OUT: tuple[Question, ...] = (
    # parts and sensors (shared corpus)
    Question("my bmp280 reads 0x60 from the id register, what part is it really", (), "bmp280.md", "BME280"),
    Question("bmp280 longest standby time in normal mode", (), "bmp280.md", "4000 ms"),
    Question("which address is the bmp280 on when SDO goes to ground", (), "bmp280.md", "0x76"),
    Question("mpu6050 gives all zeros after power up", (), "mpu6050.md", "PWR_MGMT_1"),
    Question("mpu-6050 module strapped to 0x69 still says 0x68 in whoami, broken?", (), "mpu6050.md",
             "regardless of the AD0"),
    Question("accelerometer sensitivity LSB per g at +/-4 g on the mpu6050", (), "mpu6050.md", "8192"),
    Question("sht31 crc polynomial and init value", (), "sht31.md", "0x31"),
    Question("how do I turn on the heater in the sht31 humidity sensor", (), "sht31.md", "0x306D"),
    Question("convert the sht31 raw temperature word to celsius", (), "sht31.md", "-45 + 175"),
    Question("ads1115 data rate 8 samples per second setting", (), "ads1115.md", "8 SPS"),
    Question("ads1015 result needs shifting?", (), "ads1115.md", "shift right by 4"),
    Question("oled display flip upside down command", (), "ssd1306.md", "0xC8"),
    Question("ssd1306 charge pump enable byte", (), "ssd1306.md", "0x14"),
    Question("servo driver board 50 Hz prescale value", (), "pca9685.md", "121"),
    Question("pca9685 channel 15 last register address", (), "pca9685.md", "0x45"),
    Question("RTC lost its time after the coin cell died, which flag tells me", (), "ds3231.md", "OSF"),
    Question("ds3231 temperature resolution", (), "ds3231.md", "0.25"),
    Question("square wave output 1 Hz value for the clock chip DS3231", (), "ds3231.md", "0x00"),
    # Pi HATs and the Pi header (shared corpus)
    Question("automation hat relay 2 gpio", (), "automation-hat.md", "GPIO19"),
    Question("explorer hat motor pins clash with i2s dac", (), "explorer-hat-pro.md", "GPIO19"),
    Question("explorer hat pro touch pads i2c address", (), "explorer-hat-pro.md", "0x28"),
    Question("what address is the ADC on the enviro phat, i2cdetect shows 0x48 on an old one", (),
             "enviro-phat.md", "0x49"),
    Question("enviro phat illumination leds pin and 1-wire conflict", (), "enviro-phat.md", "GPIO4"),
    Question("unicorn hat and analog audio at the same time", (), "unicorn-hat.md", "analogue audio"),
    Question("piglow registers to latch new brightness values", (), "piglow.md", "0x16"),
    Question("sense hat humidity sensor address", (), "sense-hat.md", "0x5f"),
    Question("fan shim tactile switch gpio", (), "fan-shim.md", "GPIO17"),
    Question("traffic hat button pull-up or active high", (), "traffic-hat.md", "pull-up"),
    Question("which physical pin is WiringPi 0", ("rpi-4b",), "rpi-gpio.txt", "WPI0"),
    Question("pi 3.3 V rail how much current can I draw", (), "rpi-gpio.txt", "500 mA"),
    # microcontroller boards (shared corpus)
    Question("nano upload fails not in sync, clone board", (), "arduino-nano.md", "Old Bootloader"),
    Question("can I digitalWrite A7 on a nano", (), "arduino-nano.md", "A6 and A7"),
    Question("mega serial2 pins", (), "arduino-mega2560.md", "D16"),
    Question("uno external interrupt pins", ("arduino-uno",), "arduino-uno.md", "INT0"),
    Question("g071 d4 is which stm32 pin", ("nucleo-g071rb",), "nucleo-g071rb.md", "PB5"),
    Question("l476 arduino connector index of D10", ("nucleo-l476rg",), "nucleo-l476rg.md", "PB6"),
    Question("f446 CAN pins on the arduino header", ("nucleo-f446re",), "nucleo-f446re.md", "PB8"),
    Question("nrf52840 dk button 3 pin", (), "nrf52840dk.md", "P0.24"),
    Question("nrf dk which pins does the qspi flash take", (), "nrf52840dk.md", "P0.17"),
    Question("esp32 devkitc which pins are flash, crashed after using gpio 9", ("esp32-devkitc",),
             "esp32-devkitc.md", "GPIO6"),
    Question("esp32 touch pad 7 gpio", ("esp32-devkitc",), "esp32-devkitc.md", "GPIO27"),
    Question("pico vsys voltage measurement pin", ("rpi-pico",), "rpi-pico.md", "GP29"),
    Question("zephyr arduino header index for D13", (), "generic-arduino-r3-header.md", "19"),
    Question("the thermometer on the enviro+ board address", (), "enviro-plus.md", "0x76"),
    # bundled datasheets
    Question("bme280 chip id value", (), "bme280.md", "0x60", "bundled"),
    Question("pi 4 green activity led gpio", ("rpi-4b",), "rpi-4b.md", "GPIO42", "bundled"),
    Question("pi zero 2 w bluetooth steals the uart", ("rpi-zero-2w",), "rpi-zero-2w.md", "mini UART", "bundled"),
    Question("pi 5 why does my gpiomem code not work", ("rpi-5",), "rpi-5.md", "gpiomem", "bundled"),
    Question("l476 dac outputs", ("nucleo-l476rg",), "nucleo-l476rg.md", "PA4", "bundled"),
    Question("l476 measure current consumption jumper", ("nucleo-l476rg",), "nucleo-l476rg.md", "JP6", "bundled"),
    Question("esp32 gpio12 high at boot won't start", ("esp32-devkitc",), "esp32-devkitc.md", "1.8 V", "bundled"),
    Question("pico 3v3 output current budget", ("rpi-pico",), "rpi-pico.md", "300 mA", "bundled"),
    Question("pull-up value for 400 kHz i2c", (), "generic-i2c-addresses.md", "2.2 kOhm", "bundled"),
    Question("resistor divider for 5 V into a 3.3 V pin", (), "generic-logic-levels.md", "10 kOhm", "bundled"),
    Question("pi 4 which overlay moves i2c3 to gpio 4 and 5", ("rpi-4b",), "rpi-4b.md", "pins_4_5", "bundled"),
)
