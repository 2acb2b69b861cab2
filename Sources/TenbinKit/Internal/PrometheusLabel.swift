/// Prometheus' text format, where more than one module writes it (the server's metrics, a
/// backend's own, ``StoreBackend/metricsText``).
package enum PrometheusLabel {
    /// `text` as a label value: `\`, `"` and newlines escaped.
    package static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
