import UbiquityServer
print("ubiquityd \(UbiquityVersion.string)")
