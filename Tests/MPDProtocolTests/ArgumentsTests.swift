import MPDProtocol
import MusicModel
import Testing

@Suite("Argument syntaxes")
struct ArgumentsTests {
    @Test("integers: whole text, sign, range")
    func integers() throws {
        #expect(try Arguments.integer("42") == 42)
        #expect(try Arguments.integer("-7") == -7)
        #expect(try Arguments.integer("+3") == 3)
        #expect(thrownError { try Arguments.integer("4x") } == MPDError(.argument, "Integer expected: 4x"))
        #expect(thrownError { try Arguments.integer("") } == MPDError(.argument, "Integer expected: "))
        #expect(
            thrownError { try Arguments.integer("101", in: 0...100) } == MPDError(.argument, "Number too large: 101"))
    }

    @Test("unsigned values wrap like strtoul: -1 is too large")
    func unsigned() throws {
        #expect(try Arguments.unsigned("8192") == 8192)
        // strtoul negates in unsigned arithmetic: the largest magnitude negated is 1, not an overflow.
        #expect(try Arguments.unsigned("-18446744073709551615") == 1)
        #expect(
            thrownError { try Arguments.unsigned("-18446744073709551616") }
                == MPDError(.argument, "Number too large: -18446744073709551616"))
        #expect(
            thrownError { try Arguments.unsigned("-1", maximum: 100) } == MPDError(.argument, "Number too large: -1"))
        #expect(thrownError { try Arguments.unsigned("abc") } == MPDError(.argument, "Integer expected: abc"))
        #expect(
            thrownError { try Arguments.unsigned("99999999999999999999999", maximum: 10) }
                == MPDError(.argument, "Number too large: 99999999999999999999999"))
    }

    @Test("booleans are 0 or 1 as strtol reads them")
    func booleans() throws {
        #expect(try Arguments.boolean("1"))
        #expect(try !Arguments.boolean("0"))
        #expect(try Arguments.boolean("01"))
        #expect(thrownError { try Arguments.boolean("yes") } == MPDError(.argument, "Boolean (0/1) expected: yes"))
        #expect(thrownError { try Arguments.boolean("2") } == MPDError(.argument, "Boolean (0/1) expected: 2"))
    }

    @Test("floats and song times")
    func floats() throws {
        #expect(try Arguments.float("1.5") == 1.5)
        #expect(try Arguments.float("inf") == .infinity)
        #expect(try Arguments.float("nan").isNaN)
        #expect(thrownError { try Arguments.float("1.5s") } == MPDError(.argument, "Float expected: 1.5s"))
        #expect(try Arguments.songTime("12.25") == 12.25)
        #expect(thrownError { try Arguments.songTime("-1") } == MPDError(.argument, "Negative value not allowed: -1"))
    }

    @Test("ranges: N, N:M, N:, -1, and MPD's errors")
    func ranges() throws {
        #expect(try Arguments.range("1") == RangeArgument(start: 1, end: 2))
        #expect(try Arguments.range("1:5") == RangeArgument(start: 1, end: 5))
        #expect(try Arguments.range("1:") == RangeArgument(start: 1, end: nil))
        #expect(try Arguments.range("3:3") == RangeArgument(start: 3, end: 3))
        #expect(try Arguments.range("-1") == .all)
        #expect(thrownError { try Arguments.range("-2") } == MPDError(.argument, "Number is negative: -2"))
        #expect(thrownError { try Arguments.range("5:2") } == MPDError(.argument, "Malformed range: 5:2"))
        #expect(thrownError { try Arguments.range("x") } == MPDError(.argument, "Integer or range expected: x"))
        #expect(thrownError { try Arguments.range("1:x") } == MPDError(.argument, "Integer or range expected: 1:x"))
        #expect(thrownError { try Arguments.range("1:-3") } == MPDError(.argument, "Number is negative: 1:-3"))
        #expect(
            thrownError { try Arguments.range("3000000000") } == MPDError(.argument, "Number too large: 3000000000"))
        #expect(RangeArgument(start: 2, end: nil).upperBound(clippedTo: 10) == 10)
    }
}
