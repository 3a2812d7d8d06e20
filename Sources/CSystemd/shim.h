// libsystemd as Swift sees it: readiness/status/watchdog notifications, socket activation
// and structured journal entries. Variadic calls (sd_notifyf, sd_journal_send) are not
// importable; UbiquityServer uses sd_notify and sd_journal_sendv.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
// malloc_trim: the daemon returns the initial crawl's freed memory to the system.
#include <malloc.h>
