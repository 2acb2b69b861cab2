import TenbinKit

/// The form that posts a new poster. Without JavaScript it submits straight to the API; with
/// it, app.js shows previews, checks the files as they are picked and the question's length
/// against the server's limit (``PosterTextLimits``, in bytes, which `maxlength` cannot
/// count), sends the form with `fetch` and puts each error next to the field it concerns.
extension WebPage {
    /// The form, closed, in the page's language.
    static func postForm(_ text: WebText) -> String {
        """
        <details id="compose" class="compose">
        <summary>\(html: text[.newPoster])</summary>
        <form id="post-form" method="post" action="/api/v1/posters" enctype="multipart/form-data">
        <div class="pickers">
        \(picker(1, text))\(picker(2, text))
        </div>
        <label for="contents">\(html: text[.question])</label>
        <textarea id="contents" name="contents" rows="2" placeholder="\(html: text[.questionPlaceholder])" aria-describedby="contents-error"></textarea>
        <p id="contents-error" class="field-error" aria-live="polite"></p>
        <label for="hashtags">\(html: text[.hashtags])</label>
        <input id="hashtags" name="hashtags" type="text" placeholder="\(html: text[.hashtagsPlaceholder])" aria-describedby="hashtags-error">
        <p id="hashtags-error" class="field-error" aria-live="polite"></p>
        <div class="actions"><button type="submit" id="post-submit">\(html: text[.post])</button></div>
        <p id="form-error" class="field-error" aria-live="polite"></p>
        </form>
        </details>
        """
    }

    /// One image picker with its preview and the place its errors go.
    private static func picker(_ side: Int, _ text: WebText) -> String {
        let name = text[side == 1 ? .leftImage : .rightImage]
        let preview = text[side == 1 ? .previewLeft : .previewRight]
        let alt = text[side == 1 ? .altLeft : .altRight]
        return """
            <div class="picker">
            <label for="image\(side)">\(html: name)</label>
            <input id="image\(side)" name="image\(side)" type="file" accept="image/jpeg,image/png,image/webp,image/heic,image/avif" required aria-describedby="image\(side)-error">
            <img id="image\(side)-preview" class="preview" alt="\(html: preview)" hidden>
            <p id="image\(side)-error" class="field-error" aria-live="polite"></p>
            <label for="alt\(side)">\(html: alt)</label>
            <input id="alt\(side)" name="alt\(side)" type="text" aria-describedby="alt\(side)-error">
            <p id="alt\(side)-error" class="field-error" aria-live="polite"></p>
            </div>

            """
    }
}
