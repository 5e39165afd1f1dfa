import MPDProtocol

/// The ``MPDError`` `body` throws, or `nil` when it succeeds (another error is `nil` too, so a
/// test comparing with an expected ACK fails on it).
func thrownError(_ body: () throws -> some Any) -> MPDError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? MPDError
    }
}
