// grocery — the shopping-list CLI's executable (this file is its entry point): everything is
// GroceryCommands, which the packaged `ubiquityd` also runs under the name `grocery`. Kept for
// development and tests.
import GroceryCommands

await GroceryCommandLine.main()
