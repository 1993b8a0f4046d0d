/* Cortex-M4 start-up for the STM32F401RE: vector table, .data/.bss init, then main(). */
#include <stdint.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);
void USART2_IRQHandler(void);
void SysTick_Handler(void);

void Reset_Handler(void);
void Default_Handler(void);

void Reset_Handler(void) {
    uint32_t *src = &_sidata;
    for (uint32_t *dst = &_sdata; dst < &_edata;) *dst++ = *src++;
    for (uint32_t *dst = &_sbss; dst < &_ebss;) *dst++ = 0;
    main();
    for (;;) {
    }
}

/* Any fault or unexpected interrupt: spin so a debugger can see where; the host sees the
 * link go quiet and reports a timeout. */
void Default_Handler(void) {
    for (;;) {
    }
}

/* RM0368 table 38: 16 system exceptions then 85 peripheral vectors (IRQ 0..84); USART2 = 38. */
#define VECTORS (16 + 85)
__attribute__((section(".isr_vector"), used)) void (*const vector_table[VECTORS])(void) = {
    [0] = (void (*)(void))(&_estack),
    [1] = Reset_Handler,
    [2] = Default_Handler,  /* NMI */
    [3] = Default_Handler,  /* HardFault */
    [4] = Default_Handler,  /* MemManage */
    [5] = Default_Handler,  /* BusFault */
    [6] = Default_Handler,  /* UsageFault */
    [11] = Default_Handler, /* SVCall */
    [14] = Default_Handler, /* PendSV */
    [15] = SysTick_Handler,
    [16 + 38] = USART2_IRQHandler,
};
