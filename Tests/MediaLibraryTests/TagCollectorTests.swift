import Testing

@testable import MediaLibrary

@Suite("TagCollector.clean: MPD's FixTagString and trim")
struct TagCollectorTests {
    @Test(
        "values that need nothing come back as they are, the others cleaned",
        arguments: [
            ("Night Train", "Night Train"),
            ("Björk", "Björk"),
            ("  padded ", "padded"),
            ("tab\tinside", "tab inside"),
            ("line\nbreak\r\n", "line break"),
            ("del\u{7F}", "del"),
            ("\u{3000}ideographic space", "ideographic space"),
            ("no-break space\u{A0}", "no-break space"),
            ("e\u{301}", "e\u{301}"),
            ("", ""),
            (" ", ""),
        ])
    func clean(raw: String, expected: String) {
        #expect(TagCollector.clean(raw) == expected)
    }
}
