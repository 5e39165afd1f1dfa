/// Numbers in tags such as `Track` and `Disc`, read as MPD reads them.
package enum TagNumber {
    /// The number `strtol` reads at the start of `text` (`3/12` gives 3), or 0.
    package static func leading(_ text: String?) -> Int {
        guard let text else { return 0 }
        var digits = Substring(text.drop(while: { $0 == " " }))
        var sign = 1
        if digits.first == "-" {
            sign = -1
            digits = digits.dropFirst()
        } else if digits.first == "+" {
            digits = digits.dropFirst()
        }
        let number = digits.prefix(while: { $0.isASCII && $0.isNumber }).prefix(18)
        return (Int(number) ?? 0) * sign
    }
}
