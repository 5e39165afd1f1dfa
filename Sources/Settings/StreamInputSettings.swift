/// How streams are fetched: MPD's `input { plugin "curl" … }` block, whose options Tonearm
/// reads for FFmpeg's HTTP input, so that an `mpd.conf` tuned for a proxy or a private
/// certificate authority keeps working.
package struct StreamInputSettings: Sendable, Equatable {
    /// `verify_peer` (default yes): check a `https://` server's certificate against the
    /// system's certificate authorities (or `cacert`) and its name. FFmpeg checks the name
    /// with the certificate, so `verify_host` cannot be turned off alone.
    package var verifyPeer = true
    /// `cacert`: a file of certificate authorities to trust instead of the system's.
    package var certificateAuthorities: String?
    /// `proxy` with `proxy_port`, `proxy_user` and `proxy_password`, as FFmpeg's
    /// `http_proxy` URL (`http://user:password@host:port`).
    package var proxy: String?

    /// The defaults: certificates checked, no proxy.
    package init() {}

    /// Reads the options of a `curl` input block.
    init(curlBlock block: ConfigBlock) throws(ConfigurationError) {
        if let verify = block.parameter("verify_peer") { verifyPeer = try verify.boolean() }
        certificateAuthorities = block["cacert"].flatMap { $0.isEmpty ? nil : $0 }
        if let host = block["proxy"], !host.isEmpty {
            // curl takes the host with or without `http://`.
            var address = host.hasPrefix("http://") ? String(host.dropFirst("http://".count)) : host
            if let port = block.parameter("proxy_port") { address += ":\(try port.integer(in: 0...65535))" }
            var credentials = ""
            if let user = block["proxy_user"], !user.isEmpty {
                credentials = Self.escaped(user) + (block["proxy_password"].map { ":" + Self.escaped($0) } ?? "") + "@"
            }
            proxy = "http://" + credentials + address
        }
    }

    /// `text` percent-encoded for the user part of a URL: a `@`, `:` or `/` in a password
    /// would otherwise end it.
    static func escaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "~")
            if unreserved {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return result
    }
}
