/// What the connection's reader hands on, in the order the daemon sent it: whole lines, and
/// before a long line, the items of its first list as they arrive.
package enum ServerInput: Sendable {
    case line(ServerLine)
    case arriving(ArrivingItems)
}
