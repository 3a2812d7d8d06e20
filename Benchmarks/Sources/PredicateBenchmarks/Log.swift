import BenchmarkSupport
import Foundation

/// `1,234,567`
func grouped(_ value: Double) -> String {
    let digits = String(Int64(value.rounded()))
    var out = ""
    for (i, c) in digits.reversed().enumerated() {
        if i > 0, i % 3 == 0, c != "-" { out.append(",") }
        out.append(c)
    }
    return String(out.reversed())
}

/// `3.14`
func fixed(_ value: Double, _ decimals: Int = 2) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int64((abs(value) * scale).rounded())
    let whole = scaled / Int64(scale), fraction = String(scaled % Int64(scale))
    let padded = String(repeating: "0", count: max(0, decimals - fraction.count)) + fraction
    return (value < 0 ? "-" : "") + "\(whole)" + (decimals > 0 ? "." + padded : "")
}

func padLeft(_ s: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - s.count)) + s }
func padRight(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(0, width - s.count)) }
