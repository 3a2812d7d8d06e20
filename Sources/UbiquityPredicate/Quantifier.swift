/// `ANY`/`SOME`, `ALL`, `NONE` over a multi-valued attribute, or none written (`single`).
public enum Quantifier: String, Sendable, Hashable {
    case single = ""
    case any = "ANY"
    case all = "ALL"
    case noElement = "NONE"
}
