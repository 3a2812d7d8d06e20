// ubiq — the query CLI's executable (this file is its entry point): everything is UbiqCommands,
// which the packaged `ubiquityd` also runs under the name `ubiq`. Kept for development and tests.
import UbiqCommands

await UbiqCommandLine.main()
