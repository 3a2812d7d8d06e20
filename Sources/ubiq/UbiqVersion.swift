import ArgumentParser
import CommandLineSupport
import Glibc

enum UbiqVersion {
    static let string = "0.1.0"
}
