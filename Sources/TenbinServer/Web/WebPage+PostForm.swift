/// The form that posts a new poster. Without JavaScript it submits straight to the API; with
/// it, app.js shows previews, checks the files as they are picked, sends the form with
/// `fetch` and puts each error next to the field it concerns.
extension WebPage {
    static let postForm = """
        <details id="compose" class="compose">
        <summary>New poster</summary>
        <form id="post-form" method="post" action="/api/v1/posters" enctype="multipart/form-data">
        <div class="pickers">
        \(picker(1))\(picker(2))
        </div>
        <label for="contents">Question</label>
        <textarea id="contents" name="contents" rows="2" maxlength="1000" placeholder="Which do you prefer?" aria-describedby="contents-error"></textarea>
        <p id="contents-error" class="field-error" aria-live="polite"></p>
        <label for="hashtags">Hashtags</label>
        <input id="hashtags" name="hashtags" type="text" placeholder="#cats #dogs" aria-describedby="hashtags-error" autocomplete="off">
        <p id="hashtags-error" class="field-error" aria-live="polite"></p>
        <div class="actions"><button type="submit" id="post-submit">Post</button></div>
        <p id="form-error" class="field-error" aria-live="polite"></p>
        </form>
        </details>
        """

    /// One image picker with its preview and the place its errors go.
    private static func picker(_ side: Int) -> String {
        let name = side == 1 ? "Left image" : "Right image"
        return """
            <div class="picker">
            <label for="image\(side)">\(name)</label>
            <input id="image\(side)" name="image\(side)" type="file" accept="image/jpeg,image/png,image/webp,image/heic,image/avif" required aria-describedby="image\(side)-error">
            <img id="image\(side)-preview" class="preview" alt="Preview of the \(name.lowercased())" hidden>
            <p id="image\(side)-error" class="field-error" aria-live="polite"></p>
            </div>

            """
    }
}
