import TenbinKit

/// The web page `GET /` serves, and its static files.
///
/// A stub kept minimal on purpose: the web page is built separately and replaces this file.
/// The server relies only on the two functions below.
enum WebPage {
    /// The board as server-rendered HTML: the posters of the first page in `order`, the
    /// search `query` when there is one, and the cursor of the next page.
    static func board(posters: [Poster], order: FeedOrder, query: String?, next: String?) -> String {
        var html = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tenbin</title></head><body>\n<ul>\n"
        for poster in posters {
            html += "<li>#\(poster.id) \(escape(poster.contents)) (\(poster.good1) / \(poster.good2))</li>\n"
        }
        return html + "</ul>\n</body></html>\n"
    }

    /// A static file by name (`/static/NAME`): its content type and bytes; nil when there is none.
    static func asset(named name: String) -> (contentType: String, body: [UInt8])? {
        nil
    }

    /// `text` with HTML's special characters escaped.
    private static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
