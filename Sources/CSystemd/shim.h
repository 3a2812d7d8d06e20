// CSystemd — libsystemd as Swift sees it (a system library target: libsystemd-dev, pkg-config).
//
// Owns: the headers for readiness/status/watchdog notifications, socket activation and
//   structured journal entries, and malloc_trim.
// Must not: hold code: variadic calls (sd_notifyf, sd_journal_send) are not importable, so
//   UbiquityServer uses sd_notify and sd_journal_sendv.
// Depends on: libsystemd.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
// malloc_trim: the daemon returns the initial crawl's freed memory to the system.
#include <malloc.h>
