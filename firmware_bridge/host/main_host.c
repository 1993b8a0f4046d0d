/* Host build of the bridge firmware: the same protocol core, speaking on stdin/stdout.
 *
 * SIGUSR1 plays the NRST button: whatever the "UART" had buffered is lost (the pty input
 * queue is flushed), pin state is reset and the boot banner is sent again. A watchdog expiry
 * (see hal_sim.c) does the same with reset reason "watchdog". SIGTERM or end of
 * input ends the process, as unplugging would.
 */
#include <errno.h>
#include <signal.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "../src/hal.h"
#include "../src/proto.h"

extern const char *sim_reset_reason;
double sim_now(void);
int sim_rx_next(int first, int blocked);
int sim_watchdog_expired(void);
void sim_watchdog_idle(void);
static volatile sig_atomic_t reset_requested;

static void on_usr1(int sig) {
    (void)sig;
    reset_requested = 1;
}

int main(void) {
    static struct proto_rx rx;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1; /* no SA_RESTART: a pending read returns EINTR */
    sigaction(SIGUSR1, &sa, 0);

#ifdef __linux__
    /* The pty master is ours alone: if the test or bench that started us dies, go with it
     * rather than block on a read nobody will ever satisfy. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
    hal_init();
    proto_boot(&rx);
    for (;;) {
        if (reset_requested) {
            tcflush(0, TCIFLUSH); /* not a tty (pipes): nothing to flush, error ignored */
            sim_reset_reason = reset_requested == 2 ? "watchdog" : "pin";
            reset_requested = 0;
            hal_init();
            proto_boot(&rx);
        }
        if (sim_watchdog_expired()) {
            reset_requested = 2;
            continue;
        }
        unsigned char buf[256];
        double t0 = sim_now();
        ssize_t n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        /* A read that waited more than ~50 us found the line idle: these bytes just arrived. */
        int blocked = sim_now() - t0 > 50e-6;
        for (ssize_t i = 0; i < n && !reset_requested; i++) {
            /* Busy since the last feed for too long (a blocked read was idle time: checked before it). */
            if (!(i == 0 && blocked) && sim_watchdog_expired()) {
                reset_requested = 2;
                break;
            }
            if (sim_rx_next(i == 0, blocked)) sim_watchdog_idle(); /* the idle loop ran: ring empty */
            proto_rx_byte(&rx, buf[i]);
        }
    }
}
