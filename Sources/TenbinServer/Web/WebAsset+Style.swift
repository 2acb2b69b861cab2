/// app.css: phone-sized screens first, a grid of cards on wider ones, light and dark.
extension WebAsset {
    static let style = baseStyle + widthClasses

    /// `.p0` … `.p100`: the vote bar's fill widths. The page sets a class, never a `style`
    /// attribute, which the Content-Security-Policy would refuse.
    private static let widthClasses = (0...100).map { ".p\($0){width:\($0)%}" }.joined() + "\n"

    private static let baseStyle = """
        :root {
          --bg: #f6f5f2; --card: #ffffff; --text: #1c1b1a; --muted: #6b6760; --line: #e3e0da;
          --one: #f26b1d; --two: #1d8fd6; --accent: #1c1b1a; --error: #c0262d; --focus: #7c3aed;
          font-family: system-ui, -apple-system, "Segoe UI", "Hiragino Sans", "Noto Sans CJK JP",
            "IPAGothic", "IPAPGothic", sans-serif;
          color-scheme: light dark;
        }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #141311; --card: #1e1d1b; --text: #f1efe9; --muted: #a39f96; --line: #34322e;
            --accent: #f1efe9; --error: #ff6b6b; --focus: #b794f6; }
        }
        * { box-sizing: border-box; }
        html { -webkit-text-size-adjust: 100%; }
        body { margin: 0; background: var(--bg); color: var(--text); font-size: 16px; line-height: 1.45; }
        a { color: inherit; }
        :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
        [hidden] { display: none !important; }

        .top { position: sticky; top: 0; z-index: 10; background: var(--bg); border-bottom: 1px solid var(--line);
          padding: 8px 12px 0; }
        .bar-row { display: flex; align-items: center; gap: 10px; max-width: 1100px; margin: 0 auto; }
        .brand { margin: 0; font-size: 20px; letter-spacing: .02em; }
        .brand a { text-decoration: none; }
        .search { flex: 1; }
        .search input { width: 100%; font: inherit; padding: 8px 12px; border-radius: 999px;
          border: 1px solid var(--line); background: var(--card); color: var(--text); }
        .tabs { display: flex; max-width: 1100px; margin: 4px auto 0; }
        .tab { flex: 1; text-align: center; padding: 10px 0; text-decoration: none; color: var(--muted);
          border-bottom: 3px solid transparent; font-weight: 600; }
        .tab[aria-current="page"] { color: var(--text); border-bottom-color: var(--accent); }

        main { max-width: 1100px; margin: 0 auto; padding: 12px; }
        .problem { max-width: 40em; padding: 24px 16px; }
        .problem .message { font-size: 18px; overflow-wrap: anywhere; }
        .status { color: var(--muted); margin: 4px 2px 10px; min-height: 1.2em; font-size: 14px; }
        .status:empty { display: none; }

        .compose { background: var(--card); border: 1px solid var(--line); border-radius: 14px; margin-bottom: 12px; }
        .compose summary { padding: 12px 14px; font-weight: 600; cursor: pointer; }
        .compose form { padding: 0 14px 14px; display: grid; gap: 6px; }
        .compose label { font-size: 14px; color: var(--muted); }
        .compose textarea, .compose input[type="text"] { font: inherit; padding: 8px 10px; border-radius: 10px;
          border: 1px solid var(--line); background: var(--bg); color: var(--text); width: 100%; }
        .pickers { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
        .picker { display: grid; gap: 6px; align-content: start; min-width: 0; }
        .picker input { font-size: 13px; max-width: 100%; }
        .preview { width: 100%; aspect-ratio: 1; object-fit: cover; border-radius: 10px; background: var(--line); }
        .actions { margin-top: 6px; }
        .actions button { font: inherit; font-weight: 600; padding: 10px 22px; border-radius: 999px; border: 0;
          background: var(--accent); color: var(--bg); cursor: pointer; }
        .actions button:disabled { opacity: .5; cursor: progress; }
        .field-error { color: var(--error); font-size: 14px; margin: 0; }
        .field-error:empty { display: none; }
        [aria-invalid="true"] { outline: 2px solid var(--error); }

        .board { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
        @media (min-width: 720px) { .board { grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); } }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 14px; overflow: hidden; }
        .card.arrived { animation: arrive .6s ease-out; }
        @keyframes arrive { from { transform: translateY(-6px); opacity: .3; } to { transform: none; opacity: 1; } }
        @media (prefers-reduced-motion: reduce) { .card.arrived { animation: none; } }
        .pair { display: grid; grid-template-columns: 1fr 1fr; gap: 2px; background: var(--line); }
        .image { display: block; aspect-ratio: 1; background: var(--line); }
        .image img { display: block; width: 100%; height: 100%; object-fit: cover; }
        .question { margin: 10px 12px 4px; font-size: 17px; font-weight: 600; overflow-wrap: anywhere;
          white-space: pre-line; }
        .question:empty { display: none; }
        .question, .tags a, .status bdi { unicode-bidi: isolate; }
        .tags { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 10px; margin: 4px 12px; padding: 0; font-size: 14px; }
        .tags a { color: var(--two); text-decoration: none; }
        .tags a:hover { text-decoration: underline; }
        .meter { height: 8px; margin: 10px 12px 6px; border-radius: 4px; background: var(--two); overflow: hidden; }
        .meter.none { background: var(--line); }
        .meter .fill { display: block; height: 100%; background: var(--one); transition: width .25s ease-out; }
        .meter.none .fill { background: transparent; }
        .votes { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; margin: 0 12px; }
        .vote { font: inherit; display: flex; align-items: baseline; justify-content: center; gap: 6px; padding: 8px 6px;
          border-radius: 10px; border: 2px solid currentColor; background: transparent; cursor: pointer; min-height: 44px; }
        .vote.side1 { color: var(--one); }
        .vote.side2 { color: var(--two); }
        .vote { flex-wrap: wrap; row-gap: 0; line-height: 1.3; }
        .vote .label { font-weight: 700; white-space: nowrap; flex-basis: 100%; text-align: center; }
        .vote .count { color: var(--text); font-variant-numeric: tabular-nums; font-weight: 600; }
        .vote .pct { color: var(--muted); font-size: 14px; font-variant-numeric: tabular-nums; }
        .vote:active { transform: scale(.97); }
        .meta { margin: 8px 12px 10px; color: var(--muted); font-size: 12px; }
        .meta a { text-decoration: none; }
        .toast { position: fixed; left: 50%; bottom: 16px; transform: translateX(-50%); z-index: 20; margin: 0;
          max-width: calc(100% - 24px); padding: 10px 16px; border-radius: 10px; background: var(--text); color: var(--bg); }
        .brand a::after { content: ""; display: inline-block; width: 7px; height: 7px; margin-left: 6px; border-radius: 50%;
          vertical-align: middle; background: transparent; }
        .live .brand a::after { background: #22c55e; }
        .more { display: block; text-align: center; margin: 16px auto; padding: 12px; color: var(--muted); }

        """
}
