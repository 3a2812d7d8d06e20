import UbiquityTesting

/// The `ubiq` built beside this test bundle; run it with `ubiq.run([...])`.
let ubiq = BuiltExecutable("ubiq")
