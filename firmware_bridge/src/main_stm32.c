/* NUCLEO-F401RE bridge firmware entry: bring up USART2, announce, then serve lines forever. */
#include "hal.h"
#include "proto.h"

int hal_rx_pop(uint8_t *c);
void hal_idle(void);

int main(void) {
    static struct proto_rx rx;
    hal_init();
    proto_boot(&rx);
    for (;;) {
        uint8_t c;
        while (hal_rx_pop(&c)) proto_rx_byte(&rx, c);
        hal_idle(); /* refresh the watchdog, sleep until a byte or the 100 ms tick */
    }
}
