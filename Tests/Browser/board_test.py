#!/usr/bin/python3
"""The web page in a real browser: headless Debian chromium driven by selenium.

Run by Tests/TenbinEndToEndTests/BrowserTests.swift against a real `tenbin serve` on a
loopback port, over a store already holding the sample posters:

    board_test.py --url http://127.0.0.1:PORT --tenbin BIN --store DIR --fixtures DIR --out DIR

Each check prints one line; the first failure prints what was expected and saves a screenshot
and the page's HTML into --out, then exits 1. The phone-sized screenshot of the board is
saved as board-phone.png in --out.
"""

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

# axe-core, as PyPI's axe-selenium-python bundles it (not packaged for Debian): `make test`
# installs it into .build/python (scripts/ensure-python-packages.sh).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".build", "python"))
try:
    from axe_selenium_python import Axe
except ImportError:
    Axe = None

WAIT_SECONDS = 30  # a generous bound for a loaded machine, not a timing assertion


class Failure(Exception):
    pass


class BoardTest:
    def __init__(self, args):
        self.args = args
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=412,915", "--force-device-scale-factor=2", "--lang=ja",
                     "--no-first-run", "--hide-scrollbars", "--disable-extensions", "--disable-background-networking"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        self.driver.set_page_load_timeout(WAIT_SECONDS)

    # ---- helpers -------------------------------------------------------------------------
    def check(self, name, step):
        started = time.monotonic()
        step()
        print(f"ok   {name} ({time.monotonic() - started:.1f} s)", flush=True)

    def wait(self, what, condition):
        try:
            return WebDriverWait(self.driver, WAIT_SECONDS, poll_frequency=0.05).until(lambda _: condition())
        except Exception as error:  # TimeoutException, or the condition's own error
            raise Failure(f"waited {WAIT_SECONDS} s for {what}: {error.__class__.__name__} {error}") from None

    def api(self, path):
        with urllib.request.urlopen(self.args.url + path, timeout=WAIT_SECONDS) as response:
            return json.loads(response.read())

    def card(self, poster_id):
        return self.driver.find_element(By.ID, f"poster-{poster_id}")

    def counts(self, poster_id):
        # A poster without votes shows no counts (not "0 –").
        buttons = self.card(poster_id).find_elements(By.CSS_SELECTOR, ".vote")
        return [int(b.find_element(By.CSS_SELECTOR, ".count").get_attribute("textContent") or "0") for b in buttons]

    def emulate(self, width=None, dark=False):
        """A phone `width` CSS pixels wide (headless chromium's window is never narrower than
        500 px), or the window as it is with None; light or dark colours."""
        if width is None:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        else:
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                        {"width": width, "height": 800, "deviceScaleFactor": 2, "mobile": True})
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                    {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})

    def set_language(self, language):
        """Chooses the page's language through its switch's URL (which sets the cookie)."""
        self.driver.get(self.args.url + "/language/" + language)
        self.wait(f"the page in {language}",
                  lambda: self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == language)

    def accessibility(self, where):
        """axe-core over the page as it is: no serious or critical violation."""
        if Axe is None:
            if os.environ.get("CI") == "true":
                raise Failure("axe-selenium-python is not installed (make python-deps)")
            print(f"     SKIPPED the accessibility check of {where}: axe-selenium-python is not installed", flush=True)
            return
        axe = Axe(self.driver)
        axe.inject()
        results = axe.run(options='{"resultTypes": ["violations"]}')
        bad = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
        if bad:
            lines = []
            for violation in bad:
                targets = ", ".join(" ".join(node["target"]) for node in violation["nodes"][:3])
                summary = violation["nodes"][0].get("failureSummary", "").replace("\n", " ")
                lines.append(f"{violation['id']} ({violation['impact']}, {len(violation['nodes'])} nodes: {targets}): {summary}")
            raise Failure(f"axe found serious or critical violations on {where}:\n     " + "\n     ".join(lines))
        self.axe_runs = getattr(self, "axe_runs", 0) + 1

    def fill_class(self, poster_id):
        return self.card(poster_id).find_element(By.CSS_SELECTOR, ".meter .fill").get_attribute("class")

    def tenbin(self, *arguments):
        run = subprocess.run([self.args.tenbin, "--store", self.args.store, *arguments],
                             capture_output=True, text=True, timeout=WAIT_SECONDS)
        if run.returncode != 0:
            raise Failure(f"tenbin {' '.join(arguments)} exited {run.returncode}: {run.stderr.strip()}")
        return run.stdout

    def policy_violations(self):
        return [entry["message"] for entry in self.driver.get_log("browser")
                if "Content Security Policy" in entry["message"] or "Refused to" in entry["message"]]

    def open_board(self, path="/"):
        # A page left for another must give up its live feed (app.js closes it on pagehide):
        # kept open from the back-forward cache, the feeds of earlier pages took the browser's
        # six connections to the server, and this load waited past its deadline.
        self.driver.get(self.args.url + path)
        self.wait("the board's cards", lambda: self.driver.find_elements(By.CSS_SELECTOR, "#board .card"))
        self.wait("the live feed to open", lambda: "live" in self.driver.find_element(By.TAG_NAME, "body").get_attribute("class"))

    # ---- checks --------------------------------------------------------------------------
    def board_loads(self):
        # The browser asks for Japanese first and no cookie says otherwise (set over the
        # protocol: headless chromium's --lang does not reach Accept-Language).
        agent = self.driver.execute_script("return navigator.userAgent")
        self.driver.execute_cdp_cmd("Network.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": "ja-JP,ja;q=0.9,en;q=0.8"})
        self.open_board()
        if self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang") != "ja":
            raise Failure("a browser asking for Japanese did not get the page in Japanese")
        # The rest runs in English, chosen with the switch (a cookie) over Accept-Language.
        self.set_language("en")
        self.open_board()
        cards = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")
        if len(cards) < 10:
            raise Failure(f"expected the 10 sample posters on the board, found {len(cards)}")
        text = self.driver.find_element(By.ID, "board").text
        if "ｷﾉｺ派？タケノコ派？" not in text:
            raise Failure("the Japanese question of the kinoko/takenoko poster is not on the board")
        first = cards[0].find_element(By.CSS_SELECTOR, ".pair img")
        if not first.get_attribute("alt") or "?w=" not in (first.get_attribute("srcset") or ""):
            raise Failure("the first card's image has no alt text or no srcset")
        self.wait("the first card's images to load",
                  lambda: self.driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", first))
        violations = self.policy_violations()
        if violations:
            raise Failure("the page broke its Content-Security-Policy: " + "; ".join(violations))

    def vote_changes_the_bar(self):
        poster_id = int(self.driver.find_element(By.CSS_SELECTOR, "#board .card").get_attribute("data-id"))
        before = self.api(f"/api/v1/posters/{poster_id}")
        before = before.get("poster", before)
        shown, bar = self.counts(poster_id), self.fill_class(poster_id)
        self.driver.execute_script("window.tenbinMarker = 'no reload'")
        self.card(poster_id).find_element(By.CSS_SELECTOR, ".vote.side1").click()
        self.wait("the left count to go up by one", lambda: self.counts(poster_id) == [shown[0] + 1, shown[1]])
        self.wait("the vote bar to change", lambda: self.fill_class(poster_id) != bar)
        # The keyboard votes too: focus the right button and press Enter.
        button = self.card(poster_id).find_element(By.CSS_SELECTOR, ".vote.side2")
        self.driver.execute_script("arguments[0].focus()", button)
        button.send_keys(Keys.ENTER)
        self.wait("the right count to go up by one", lambda: self.counts(poster_id) == [shown[0] + 1, shown[1] + 1])

        def committed():
            after = self.api(f"/api/v1/posters/{poster_id}")
            after = after.get("poster", after)
            return after["good1"] == before["good1"] + 1 and after["good2"] == before["good2"] + 1
        self.wait("the server to have counted both votes", committed)
        if self.driver.execute_script("return window.tenbinMarker") != "no reload":
            raise Failure("voting with the script navigated away (the vote form was submitted as well)")
        self.vote_poster = poster_id

    def a_vote_without_javascript_is_counted(self):
        # A tap before app.js arrives on a slow network, or a browser without scripts: the
        # vote buttons are a plain form, answered with a redirect back to the poster.
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.driver.get(self.args.url + "/?sort=popular")
            card = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")[1]
            poster_id = int(card.get_attribute("data-id"))
            before = self.api(f"/api/v1/posters/{poster_id}")
            before = before.get("poster", before)
            card.find_element(By.CSS_SELECTOR, ".vote.side2").click()
            self.wait("the page to come back at the poster",
                      lambda: self.driver.current_url.endswith(f"/?sort=popular#poster-{poster_id}"))
            self.wait("the counted vote on the page", lambda: self.counts(poster_id) == [before["good1"], before["good2"] + 1])
            place = self.driver.execute_script(
                "return [document.getElementById(arguments[0]).getBoundingClientRect().top,"
                " document.querySelector('.top').getBoundingClientRect().bottom]", f"poster-{poster_id}")
            if place[0] < place[1] and self.driver.execute_script("return window.scrollY > 0"):
                raise Failure(f"the sticky header covers the poster the page came back to: {place}")
            after = self.api(f"/api/v1/posters/{poster_id}")
            after = after.get("poster", after)
            if (after["good1"], after["good2"]) != (before["good1"], before["good2"] + 1):
                raise Failure(f"the server counted {after['good1']}:{after['good2']} after one vote on {before['good1']}:{before['good2']}")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})

    def vote_from_another_process_arrives(self):
        poster_id = self.vote_poster
        shown = self.counts(poster_id)
        self.tenbin("vote", str(poster_id), "2", "--times", "5")
        self.wait("the other process's 5 votes to arrive live", lambda: self.counts(poster_id) == [shown[0], shown[1] + 5])
        if self.driver.execute_script("return window.tenbinMarker") != "no reload":
            raise Failure("the page reloaded instead of updating live")

    def half_width_search_finds_full_width(self):
        box = self.driver.find_element(By.ID, "search")
        box.click()
        box.send_keys("ﾀｹﾉｺ")

        def only_takenoko():
            cards = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")
            return len(cards) == 1 and "タケノコ" in cards[0].text
        self.wait("only the タケノコ poster to be shown", only_takenoko)
        url = self.driver.current_url
        if "q=%EF%BE%80%EF%BD%B9%EF%BE%89%EF%BD%BA" not in url:
            raise Failure(f"the query is not kept in the URL: {url}")
        # The shared URL renders the same search on the server.
        self.open_board("/?q=%EF%BE%80%EF%BD%B9%EF%BE%89%EF%BD%BA")
        self.wait("the shared search URL to show the タケノコ poster", only_takenoko)
        box = self.driver.find_element(By.ID, "search")
        if box.get_attribute("value") != "ﾀｹﾉｺ":
            raise Failure("the search box does not show the query from the URL")
        box.send_keys(Keys.ESCAPE)
        self.wait("the whole board to come back",
                  lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#board .card")) >= 10)

    def post_two_images_through_the_form(self):
        self.open_board()
        self.driver.find_element(By.CSS_SELECTOR, "#compose summary").click()
        fixtures = self.args.fixtures
        self.driver.find_element(By.ID, "image1").send_keys(os.path.join(fixtures, "left.jpg"))
        self.driver.find_element(By.ID, "image2").send_keys(os.path.join(fixtures, "right.png"))
        for side in (1, 2):
            self.wait(f"the preview of image {side}",
                      lambda side=side: self.driver.find_element(By.ID, f"image{side}-preview").is_displayed())
        self.driver.find_element(By.ID, "contents").send_keys("ブラウザから投稿：どっち？")
        self.driver.find_element(By.ID, "hashtags").send_keys("#テスト web")
        self.driver.find_element(By.ID, "alt1").send_keys("A ginger cat looking up")
        self.driver.find_element(By.ID, "post-submit").click()

        def posted_card():
            first = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")
            return first and "ブラウザから投稿：どっち？" in first[0].text and first[0]
        card = self.wait("the new poster at the top of the board", posted_card)
        poster = self.api(f"/api/v1/posters/{card.get_attribute('data-id')}")
        poster = poster.get("poster", poster)
        if poster["hashtags"] != ["テスト", "web"] or poster["contents"] != "ブラウザから投稿：どっち？" \
                or poster.get("alt1") != "A ginger cat looking up" or "alt2" in poster:
            raise Failure(f"the server stored another poster: {poster}")
        alts = [img.get_attribute("alt") for img in card.find_elements(By.CSS_SELECTOR, ".pair img")]
        if alts != ["A ginger cat looking up", "Right image: ブラウザから投稿：どっち？"]:
            raise Failure(f"the new card's images say {alts}")
        cards = self.driver.find_elements(By.ID, f"poster-{poster['id']}")
        if len(cards) != 1:
            raise Failure(f"the new poster is shown {len(cards)} times")
        votes = [b.find_element(By.CSS_SELECTOR, ".count").text + b.find_element(By.CSS_SELECTOR, ".pct").text
                 for b in card.find_elements(By.CSS_SELECTOR, ".vote")]
        if votes != ["", ""] or "No votes yet" not in card.find_element(By.CSS_SELECTOR, ".meta").text:
            raise Failure(f"a poster without votes shows {votes} (not \"0 –\") and says {card.find_element(By.CSS_SELECTOR, '.meta').text!r}")

    def bad_files_show_errors_next_to_their_field(self):
        self.driver.find_element(By.CSS_SELECTOR, "#compose summary").click()
        self.wait("the form to open", lambda: self.driver.find_element(By.ID, "image1").is_displayed())
        # Not an image at all: said as soon as it is picked.
        self.driver.find_element(By.ID, "image1").send_keys(os.path.join(self.args.fixtures, "notes.txt"))
        message = self.wait("an error next to the left image picker",
                            lambda: self.driver.find_element(By.ID, "image1-error").text)
        if "notes.txt" not in message:
            raise Failure(f"the error does not name the file: {message!r}")
        # An image the server refuses (30000×30000 pixels in a small PNG): its answer goes next
        # to the field too.
        self.driver.find_element(By.ID, "image1").clear()
        self.driver.find_element(By.ID, "image1").send_keys(os.path.join(self.args.fixtures, "huge.png"))
        self.driver.find_element(By.ID, "image2").send_keys(os.path.join(self.args.fixtures, "right.png"))
        self.wait("the left error to clear", lambda: not self.driver.find_element(By.ID, "image1-error").text)
        before = len(self.driver.find_elements(By.CSS_SELECTOR, "#board .card"))
        self.driver.find_element(By.ID, "post-submit").click()
        message = self.wait("the server's error next to the left image picker",
                            lambda: self.driver.find_element(By.ID, "image1-error").text)
        print(f"     server said: {message}", flush=True)
        if "image1" in message or "Left image" not in message:
            raise Failure(f"the error names the field otherwise than the form does: {message!r}")
        if self.driver.find_element(By.ID, "image1").get_attribute("aria-invalid") != "true":
            raise Failure("the left picker is not marked invalid")
        if len(self.driver.find_elements(By.CSS_SELECTOR, "#board .card")) != before:
            raise Failure("a refused poster appeared on the board")
        # Two photos over the server's upload limit (25 MB): said before a byte is sent, since a
        # phone on a slow network would spend minutes uploading them to be refused.
        for name in ("big-left.jpg", "big-right.jpg"):
            with open(os.path.join(self.args.fixtures, name), "wb") as big:
                big.write(b"\xff\xd8\xff\xe0" + bytes(13 * 1024 * 1024))
        posts = self.posts_seen()
        for side, name in (("image1", "big-left.jpg"), ("image2", "big-right.jpg")):
            self.driver.find_element(By.ID, side).clear()
            self.driver.find_element(By.ID, side).send_keys(os.path.join(self.args.fixtures, name))
        self.wait("the left error to clear", lambda: not self.driver.find_element(By.ID, "image1-error").text)
        self.driver.find_element(By.ID, "post-submit").click()
        message = self.wait("the size error next to an image picker",
                            lambda: self.driver.find_element(By.ID, "image1-error").text
                            or self.driver.find_element(By.ID, "image2-error").text)
        if "26.0 MB together" not in message or "at most 25.0 MB" not in message:
            raise Failure(f"the error does not say the sizes: {message!r}")
        if self.posts_seen() != posts:
            raise Failure("the images were sent to the server anyway")
        # The question's limit is the server's, in bytes: 1,400 kanji are 4,200 bytes.
        self.driver.execute_script(
            "const box = document.getElementById('contents'); box.value = '猫'.repeat(1400);"
            "box.dispatchEvent(new Event('input'))")
        message = self.wait("the question's length error", lambda: self.driver.find_element(By.ID, "contents-error").text)
        if "4200" not in message or "4096" not in message:
            raise Failure(f"the question's error does not say its bytes and the limit: {message!r}")
        self.driver.execute_script(
            "const box = document.getElementById('contents'); box.value = '猫'.repeat(1365);"
            "box.dispatchEvent(new Event('input'))")
        self.wait("the error to clear at 4,095 bytes", lambda: not self.driver.find_element(By.ID, "contents-error").text)

    def posts_seen(self):
        with urllib.request.urlopen(self.args.url + "/metrics", timeout=WAIT_SECONDS) as response:
            text = response.read().decode()
        prefix = 'tenbin_http_requests_total{route="POST /api/v1/posters"'
        return sum(int(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(prefix))

    def hostile_text_is_shown_as_text(self):
        self.open_board()
        question = '<img src=x onerror="window.pwned=1">\u202e逆\x1b[2J'
        self.tenbin("post", os.path.join(self.args.fixtures, "left.jpg"), os.path.join(self.args.fixtures, "right.png"),
                    "--text", question, "--tag", "<b>bold</b>")
        shown = '<img src=x onerror="window.pwned=1">\ufffd逆\u241b[2J'

        def check(where):
            card = self.driver.find_element(By.CSS_SELECTOR, "#board .card")
            text = card.find_element(By.CSS_SELECTOR, ".question").text
            if text != shown:
                raise Failure(f"{where}: the question shows {text!r}, not {shown!r}")
            if card.find_elements(By.CSS_SELECTOR, ".question *, .tags b") or self.driver.execute_script("return window.pwned"):
                raise Failure(f"{where}: user text became markup")
            if card.find_element(By.CSS_SELECTOR, ".tags a").text != "#<b>bold</b>":
                raise Failure(f"{where}: the hashtag is not shown as written")
        self.wait("the hostile poster to arrive live", lambda: "onerror" in self.driver.find_element(By.CSS_SELECTOR, "#board .card").text)
        check("built by the script")
        # The server's own HTML, before any script runs.
        with urllib.request.urlopen(self.args.url + "/", timeout=WAIT_SECONDS) as response:
            html = response.read().decode("utf-8")
        escaped = '&lt;img src=x onerror=&quot;window.pwned=1&quot;&gt;\ufffd逆\u241b[2J'
        if escaped not in html or "#&lt;b&gt;bold&lt;/b&gt;" not in html or "<b>bold" in html or "\u202e" in html:
            raise Failure("the server's HTML does not show the hostile question and hashtag escaped and neutralised")
        self.open_board()
        check("rendered by the server and kept by the script")

    def the_report_menu_reports_a_poster(self):
        self.open_board()
        cards = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")
        bare = [card.get_attribute("data-id") for card in cards if not card.find_elements(By.CSS_SELECTOR, "details.report")]
        if bare:
            raise Failure(f"cards without a report menu: {bare}")
        card = cards[-1]
        poster_id = card.get_attribute("data-id")
        menu = card.find_element(By.CSS_SELECTOR, "details.report")
        if menu.find_element(By.CSS_SELECTOR, "form").is_displayed():
            raise Failure("the report form shows before its menu is opened")
        menu.find_element(By.TAG_NAME, "summary").click()
        form = menu.find_element(By.CSS_SELECTOR, "form")
        self.wait("the report form to open", form.is_displayed)
        Select(form.find_element(By.NAME, "reason")).select_by_value("illegal")
        form.find_element(By.NAME, "note").send_keys("ブラウザから")
        self.driver.execute_script("window.tenbinMarker = 'no reload'")
        form.find_element(By.TAG_NAME, "button").click()
        said = form.find_element(By.CSS_SELECTOR, ".report-status")
        self.wait("the menu to say the report was sent", lambda: said.text == "Thank you: reported.")
        if self.driver.execute_script("return window.tenbinMarker") != "no reload":
            raise Failure("sending a report reloaded the page")
        shown = json.loads(self.tenbin("moderation", "show", poster_id, "--json"))
        if [(r["reason"], r["note"]) for r in shown["reports"]] != [("illegal", "ブラウザから")]:
            raise Failure(f"the store holds other reports of poster {poster_id}: {shown['reports']}")
        # The same browser (one address) reporting again is told so in place.
        form.find_element(By.TAG_NAME, "button").click()
        self.wait("the menu to say it was reported already", lambda: "already" in said.text)
        self.tenbin("moderation", "restore", poster_id)

    def the_admin_page_works_on_a_phone(self):
        poster_id = self.driver.find_element(By.CSS_SELECTOR, "#board .card").get_attribute("data-id")
        self.tenbin("moderation", "hide", poster_id, "--reason", "for the browser test")
        # A phone's viewport (headless Chromium's window is never narrower than 500 px).
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
        try:
            self.admin_page_steps(poster_id)
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def admin_page_steps(self, poster_id):
        self.driver.get(self.args.url + "/admin")
        token = self.driver.find_element(By.NAME, "token")
        token.send_keys("browser-test-admin-token-0123456789")
        token.submit()
        self.wait("the queue after logging in", lambda: self.driver.find_elements(By.CSS_SELECTOR, ".admin-queue"))
        cookies = {cookie["name"]: cookie for cookie in self.driver.get_cookies()}
        session = cookies.get("tenbin_admin")
        if not session or not session.get("httpOnly") or session.get("sameSite") != "Strict":
            raise Failure(f"the session cookie is not HttpOnly and SameSite=Strict: {session}")
        if self.driver.execute_script("return document.cookie").find("tenbin_admin") >= 0:
            raise Failure("the page's script can read the session cookie")
        item = self.driver.find_element(By.ID, f"poster-{poster_id}")
        width = self.driver.execute_script("return document.documentElement.scrollWidth")
        viewport = self.driver.execute_script("return window.innerWidth")
        if viewport > 400:
            raise Failure(f"the phone's viewport is {viewport} px wide")
        if width > viewport:
            raise Failure(f"the moderation page scrolls sideways on a phone: {width} px in {viewport}")
        button = item.find_element(By.XPATH, ".//button[text()='Restore']")
        if button.size["height"] < 44:
            raise Failure(f"the Restore button is {button.size['height']} px high, under a thumb's 44")
        item.find_element(By.NAME, "reason").send_keys("looks fine")
        button.click()
        self.wait("the poster to leave the queue", lambda: not self.driver.find_elements(By.ID, f"poster-{poster_id}"))
        log = self.driver.find_element(By.CSS_SELECTOR, ".admin-log").text
        if f"token restore #{poster_id}: looks fine" not in log:
            raise Failure(f"the log does not show the restore: {log!r}")
        violations = self.policy_violations()
        if violations:
            raise Failure("the moderation page broke its Content-Security-Policy: " + "; ".join(violations))
        self.api(f"/api/v1/posters/{poster_id}")  # shown again: no 404

    def scrolling_loads_more_and_deletions_arrive_live(self):
        # 16 more posters make 28: more than one page of 20.
        for index in range(16):
            self.tenbin("post", os.path.join(self.args.fixtures, "left.jpg"), os.path.join(self.args.fixtures, "right.png"),
                        "--text", f"スクロール {index}")
        self.open_board()
        def ids():  # read in one script, so a card removed meanwhile cannot go stale half-way
            return self.driver.execute_script(
                "return Array.from(document.querySelectorAll('#board .card'), (card) => card.dataset.id)")
        if len(ids()) != 20:
            raise Failure(f"the first page should hold 20 posters, it holds {len(ids())}")
        self.driver.execute_script("document.getElementById('more').scrollIntoView()")
        self.wait("the next page to load as the end comes near", lambda: len(ids()) == 28)
        if len(set(ids())) != 28:
            raise Failure(f"a poster is shown twice after scrolling: {ids()}")
        menus = self.driver.execute_script("return document.querySelectorAll('#board .card details.report').length")
        if menus != 28:
            raise Failure(f"only {menus} of the 28 cards have a report menu after scrolling")
        if self.driver.find_element(By.ID, "more").is_displayed():
            raise Failure("the More link is still shown after the last page")
        # A poster deleted by another process disappears without a reload.
        victim = ids()[3]
        self.driver.execute_script("window.tenbinMarker = 'no reload'")
        self.tenbin("delete", victim)
        self.wait(f"poster {victim} to disappear", lambda: victim not in ids())
        if self.driver.execute_script("return window.tenbinMarker") != "no reload":
            raise Failure("the page reloaded instead of updating live")

    def an_expired_walk_starts_again_from_the_first_page(self):
        self.open_board("/?sort=popular")
        total = len(self.api("/api/v1/posters?sort=popular&limit=100")["posters"])
        def ids():
            return self.driver.execute_script(
                "return Array.from(document.querySelectorAll('#board .card'), (card) => card.dataset.id)")
        if len(ids()) != 20 or total <= 20:
            raise Failure(f"the Popular tab should show 20 of {total} posters first, it shows {len(ids())}")
        # A vote, then the vote log pruned past it, as an hour-old walk finds the real server:
        # the page's next cursor is answered 410 cursor_expired.
        self.tenbin("vote", ids()[-1], "1")
        with sqlite3.connect(os.path.join(self.args.store, "tenbin.sqlite")) as db:
            db.execute("UPDATE vote_batch SET oldest = last")
        self.driver.execute_script("document.getElementById('more').scrollIntoView()")
        self.wait("the walk to start again from the first page and reach its end", lambda: len(ids()) == total)
        if len(set(ids())) != total:
            raise Failure(f"a poster is shown twice after the walk started again: {ids()}")
        toast = self.driver.execute_script("const t = document.querySelector('p.toast'); return t && !t.hidden ? t.textContent : ''")
        if toast:
            raise Failure(f"the page reported something instead of starting again: {toast!r}")

    def tapping_an_image_votes_and_a_long_press_opens_it_large(self):
        self.emulate(390)
        self.open_board()
        card = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")[2]
        poster_id = int(card.get_attribute("data-id"))
        before = self.api(f"/api/v1/posters/{poster_id}")
        before = before.get("poster", before)
        shown = self.counts(poster_id)
        self.driver.execute_script("window.tenbinMarker = 'no reload'")
        image = card.find_element(By.CSS_SELECTOR, ".side2 a.image")
        for tap in range(1, 4):
            image.click()
            self.wait(f"tap {tap} to move the right count", lambda tap=tap: self.counts(poster_id) == [shown[0], shown[1] + tap])
            if "pulse" not in card.find_element(By.CSS_SELECTOR, ".side2").get_attribute("class"):
                raise Failure("a tap on the image shows no pulse")

        def committed():
            after = self.api(f"/api/v1/posters/{poster_id}")
            after = after.get("poster", after)
            return (after["good1"], after["good2"]) == (before["good1"], before["good2"] + 3)
        self.wait("the server to have counted the three taps", committed)
        question = card.find_element(By.CSS_SELECTOR, ".question").get_attribute("textContent")
        self.wait("the vote to be announced politely",
                  lambda: question in self.driver.find_element(By.ID, "announcer").get_attribute("textContent"))
        name = self.driver.execute_script(
            "const b = arguments[0]; return b.querySelector('.label').textContent + b.querySelector('.sr').textContent",
            card.find_element(By.CSS_SELECTOR, ".vote.side2"))
        if name != "Vote right – " + question:
            raise Failure(f"the right vote button is named {name!r}")
        # The zoom control opens the full image; Escape closes it.
        card.find_element(By.CSS_SELECTOR, ".side1 .zoom").click()
        self.wait("the lightbox with the full left image", lambda: self.driver.execute_script(
            "const d = document.querySelector('dialog.lightbox'); const i = d.querySelector('img');"
            "return d.open && i.src.includes('/blobs/') && i.complete && i.naturalWidth > 0"))
        self.driver.save_screenshot(os.path.join(self.args.out, "lightbox-phone.png"))
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        self.wait("the lightbox to close", lambda: not self.driver.execute_script("return document.querySelector('dialog.lightbox').open"))
        # A press held on an image opens it large and votes for nothing.
        shown = self.counts(poster_id)
        hold = ActionChains(self.driver)
        hold.click_and_hold(card.find_element(By.CSS_SELECTOR, ".side1 a.image")).perform()
        self.wait("the long press to open the lightbox",
                  lambda: self.driver.execute_script("return document.querySelector('dialog.lightbox').open"))
        ActionChains(self.driver).release().perform()
        self.driver.execute_script("document.querySelector('dialog.lightbox').close()")
        card.find_element(By.CSS_SELECTOR, ".vote.side1").click()  # a vote after it, to wait on
        self.wait("the vote after the long press", lambda: self.counts(poster_id) == [shown[0] + 1, shown[1]])
        if self.driver.execute_script("return window.tenbinMarker") != "no reload":
            raise Failure("tapping an image navigated away")

    def a_hashtag_searches_its_tag(self):
        self.emulate(390)
        self.open_board()
        link = self.driver.find_element(By.CSS_SELECTOR, "#board .tags a")
        tag = link.text[1:]
        link.click()
        expected = [str(p["id"]) for p in self.api("/api/v1/search?limit=100&q=" + urllib.parse.quote("#" + tag))["posters"]]

        def shown():
            return self.driver.execute_script(
                "return Array.from(document.querySelectorAll('#board .card'), (card) => card.dataset.id)")
        self.wait(f"the posters tagged or saying {tag}", lambda: shown() == expected)
        if urllib.parse.quote("#" + tag, safe="") not in self.driver.current_url:
            raise Failure(f"the tag's search is not in the address: {self.driver.current_url}")
        if self.driver.find_element(By.ID, "search").get_attribute("value") != "#" + tag:
            raise Failure("the search box does not show the tag")
        self.accessibility(f"the results for #{tag}")

    def no_page_scrolls_sideways_on_a_phone(self):
        fixtures = self.args.fixtures
        for language in ("en", "ja"):
            self.set_language(language)
            for width in (320, 390, 430):
                self.emulate(width)
                self.open_board()
                self.driver.find_element(By.CSS_SELECTOR, "#compose summary").click()
                self.driver.find_element(By.ID, "image1").send_keys(os.path.join(fixtures, "left.jpg"))
                self.driver.find_element(By.ID, "image2").send_keys(os.path.join(fixtures, "right.png"))
                self.driver.find_element(By.ID, "contents").send_keys("とても長い質問" * 12)
                self.driver.find_element(By.ID, "hashtags").send_keys("#verylonghashtagwithoutanyspaceswhatsoever #猫")
                for side in (1, 2):
                    self.wait(f"the preview of image {side}", lambda side=side: self.driver.execute_script(
                        "const p = document.getElementById(arguments[0]); return !p.hidden && p.complete && p.naturalWidth > 0",
                        f"image{side}-preview"))
                for dark in (False, True):
                    self.emulate(width, dark)
                    overflow = self.driver.execute_script("""
                        const width = document.documentElement.clientWidth;
                        const wide = Array.from(document.querySelectorAll('body *')).filter((node) => {
                          const box = node.getBoundingClientRect();
                          return box.width > 0 && node.closest('.sr, .skip') === null && box.right > width + 0.5;
                        }).slice(0, 5).map((node) => node.tagName + '#' + node.id + '.' + node.className + ' ' + node.getBoundingClientRect().right);
                        return {scroll: document.documentElement.scrollWidth, width: width, wide: wide};""")
                    if overflow["scroll"] > overflow["width"] or overflow["wide"]:
                        raise Failure(f"{language} at {width} px ({'dark' if dark else 'light'}), form open and filled, "
                                      f"scrolls sideways: {overflow}")
                    if width == 390:
                        self.accessibility(f"the board with the form open ({language}, {width} px, {'dark' if dark else 'light'})")
                if width == 320:
                    name = f"form-phone-{language}-dark.png"
                    self.driver.save_screenshot(os.path.join(self.args.out, name))
        self.set_language("en")

    def a_poster_link_stops_below_the_sticky_header(self):
        self.emulate(390)
        self.open_board()
        last = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")[-2]
        poster_id = last.get_attribute("data-id")
        self.driver.get("about:blank")
        self.driver.get(self.args.url + f"/#poster-{poster_id}")
        self.wait("the page to scroll to the poster", lambda: self.driver.execute_script("return window.scrollY > 0"))
        place = self.driver.execute_script(
            "return [document.getElementById(arguments[0]).getBoundingClientRect().top,"
            " document.querySelector('.top').getBoundingClientRect().bottom]", f"poster-{poster_id}")
        if place[0] < place[1]:
            raise Failure(f"the sticky header covers the poster: its top is at {place[0]}, the header ends at {place[1]}")

    def the_page_speaks_japanese(self):
        self.emulate(390)
        self.open_board()
        self.driver.find_element(By.CSS_SELECTOR, ".langs a[lang=ja]").click()
        self.wait("the page in Japanese", lambda: self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ja")
        self.open_board()
        tabs = [tab.text for tab in self.driver.find_elements(By.CSS_SELECTOR, ".tab")]
        labels = {label.text for label in self.driver.find_elements(By.CSS_SELECTOR, "#board .vote .label")}
        if tabs != ["新着", "人気", "急上昇"] or labels != {"左に投票", "右に投票"}:
            raise Failure(f"the page is not in Japanese: tabs {tabs}, vote labels {labels}")
        times = [time.text for time in self.driver.find_elements(By.CSS_SELECTOR, "#board .meta time")]
        if not times or not all(re.fullmatch(r"たった今|\d+分前|\d+時間前|\d+日前|\d{4}-\d\d-\d\d", text) for text in times):
            raise Failure(f"the times are not relative in Japanese: {times[:5]}")
        # The script's own messages are in the page's language too.
        self.driver.find_element(By.CSS_SELECTOR, "#compose summary").click()
        self.driver.find_element(By.ID, "image1").send_keys(os.path.join(self.args.fixtures, "notes.txt"))
        message = self.wait("a Japanese error next to the left picker", lambda: self.driver.find_element(By.ID, "image1-error").text)
        if message != "notes.txt は JPEG・PNG・WebP・HEIC・AVIF の画像ではありません。":
            raise Failure(f"the picker's error is not in Japanese: {message!r}")
        for dark in (False, True):
            self.emulate(390, dark)
            self.accessibility(f"the Japanese board ({'dark' if dark else 'light'})")
        self.emulate(None, True)
        self.accessibility("the Japanese board on a desktop (dark)")
        # Without scripts the server's page is Japanese too; back to English by the switch.
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.driver.get(self.args.url + "/?sort=popular")
            if self.driver.find_element(By.CSS_SELECTOR, ".vote .label").text != "左に投票":
                raise Failure("without scripts the page is not in Japanese")
            self.driver.find_element(By.CSS_SELECTOR, ".langs a[lang=en]").click()
            self.wait("the page back in English", lambda: self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en")
            if "sort=popular" not in self.driver.current_url:
                raise Failure(f"the switch did not come back to the same page: {self.driver.current_url}")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        self.open_board()
        times = [time.text for time in self.driver.find_elements(By.CSS_SELECTOR, "#board .meta time")]
        if not all(re.fullmatch(r"just now|\d+ min ago|\d+ h ago|\d+ d ago|\d{4}-\d\d-\d\d", text) for text in times):
            raise Failure(f"the times are not relative in English: {times[:5]}")

    def screenshots(self):
        # Votes that make the bars worth looking at, then the Popular tab: Japanese questions
        # and hashtags on top.
        for poster_id, side, times in ((8, 1, 12), (8, 2, 9), (6, 2, 7), (6, 1, 3), (7, 1, 5), (1, 2, 4), (1, 1, 2)):
            self.tenbin("vote", str(poster_id), str(side), "--times", str(times))
        self.open_board("/?sort=popular")
        first = self.driver.find_element(By.CSS_SELECTOR, "#board .card")
        if "ｷﾉｺ派？タケノコ派？" not in first.text:
            raise Failure(f"the most voted poster is not first on the Popular tab: {first.text!r}")
        for image in self.driver.find_elements(By.CSS_SELECTOR, "#board .card img")[:4]:
            self.wait("the top images to load",
                      lambda image=image: self.driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image))
        self.driver.save_screenshot(os.path.join(self.args.out, "board-phone.png"))
        self.accessibility("the Popular tab (English, light)")
        self.emulate(390, True)
        self.accessibility("the Popular tab (English, dark)")
        self.driver.save_screenshot(os.path.join(self.args.out, "board-phone-dark.png"))
        self.emulate(None)
        self.driver.set_window_size(1280, 900)
        self.driver.save_screenshot(os.path.join(self.args.out, "board-desktop.png"))
        self.accessibility("the Popular tab on a desktop")

    def the_trending_tab_puts_recent_votes_first(self):
        # The third tab: most recent votes first. A burst of votes on a poster from another
        # process puts it first there; the page asks the API in the same order, live.
        self.tenbin("vote", "2", "1", "--times", "40")
        self.open_board("/")
        self.driver.find_element(By.CSS_SELECTOR, ".tabs a[data-sort=trending]").click()
        self.wait("the Trending tab", lambda: self.driver.current_url.endswith("/?sort=trending"))
        self.wait("the board's cards", lambda: self.driver.find_elements(By.CSS_SELECTOR, "#board .card"))
        current = self.driver.find_element(By.CSS_SELECTOR, ".tabs a[aria-current=page]")
        if current.get_attribute("data-sort") != "trending" or current.text != "Trending":
            raise Failure(f"the current tab is not Trending: {current.get_attribute('data-sort')!r} {current.text!r}")
        expected = [poster["id"] for poster in self.api("/api/v1/posters?sort=trending&limit=5")["posters"]]
        shown = [int(card.get_attribute("data-id")) for card in self.driver.find_elements(By.CSS_SELECTOR, "#board .card")[:5]]
        if shown != expected or expected[0] != 2:
            raise Failure(f"the Trending tab shows {shown}, the API's trending order is {expected} (poster 2 first)")
        self.wait("the live feed to open", lambda: "live" in self.driver.find_element(By.TAG_NAME, "body").get_attribute("class"))
        self.accessibility("the Trending tab (English)")
        self.driver.get(self.args.url + "/language/ja")
        self.wait("the page in Japanese", lambda: self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ja")
        self.open_board("/?sort=trending")
        if self.driver.find_element(By.CSS_SELECTOR, ".tabs a[aria-current=page]").text != "急上昇":
            raise Failure("the Trending tab is not named in Japanese")
        self.accessibility("the Trending tab (Japanese)")
        self.driver.get(self.args.url + "/language/en")
        self.wait("the page back in English", lambda: self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en")

    def checks(self):
        return [
            ("the board loads with Japanese text, thumbnails and no policy violation", self.board_loads),
            ("a vote (click and keyboard) changes the bar and is committed", self.vote_changes_the_bar),
            ("a vote cast by another process arrives live", self.vote_from_another_process_arrives),
            ("a half-width katakana query finds the full-width poster, kept in the URL", self.half_width_search_finds_full_width),
            ("two images posted through the form appear on the board", self.post_two_images_through_the_form),
            ("bad files show errors next to their field", self.bad_files_show_errors_next_to_their_field),
            ("hostile user text is shown as text, by the script and by the server", self.hostile_text_is_shown_as_text),
            ("the report menu on a card sends a report and says so in place", self.the_report_menu_reports_a_poster),
            ("the /admin page logs in with the token and restores a hidden poster at phone size", self.the_admin_page_works_on_a_phone),
            ("scrolling loads the next page; a deletion by another process arrives live",
             self.scrolling_loads_more_and_deletions_arrive_live),
            ("a walk the server no longer keeps (410 cursor_expired) starts again from the first page",
             self.an_expired_walk_starts_again_from_the_first_page),
            ("tapping an image votes, with a pulse; the zoom control and a long press open it large",
             self.tapping_an_image_votes_and_a_long_press_opens_it_large),
            ("a hashtag searches its tag", self.a_hashtag_searches_its_tag),
            ("no page scrolls sideways at 320-430 px with the form open and filled (en, ja, light, dark; axe on each)",
             self.no_page_scrolls_sideways_on_a_phone),
            ("the page speaks Japanese: switch, labels, relative times, script messages, without scripts; axe",
             self.the_page_speaks_japanese),
            ("a #poster-N link stops below the sticky header", self.a_poster_link_stops_below_the_sticky_header),
            ("screenshots of the Popular tab (phone and desktop); axe in both themes", self.screenshots),
            ("the Trending tab puts the most recent votes first (en, ja; axe on each)", self.the_trending_tab_puts_recent_votes_first),
            ("without JavaScript, a vote tap is counted and comes back to the poster", self.a_vote_without_javascript_is_counted),
        ]

    def run(self):
        try:
            for name, step in self.checks():
                try:
                    self.check(name, step)
                except Failure as failure:
                    print(f"FAIL {name}: {failure}", flush=True)
                    self.driver.save_screenshot(os.path.join(self.args.out, "failure.png"))
                    with open(os.path.join(self.args.out, "failure.html"), "w", encoding="utf-8") as page:
                        page.write(self.driver.page_source)
                    for entry in self.driver.get_log("browser"):
                        print(f"     console: {entry['message']}", flush=True)
                    return 1
            return 0
        finally:
            self.driver.quit()


def main(test=BoardTest):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("url", "tenbin", "store", "fixtures", "out"):
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    try:
        urllib.request.urlopen(args.url + "/", timeout=WAIT_SECONDS).read()
    except (urllib.error.URLError, OSError) as error:
        print(f"FAIL the server at {args.url} cannot be reached: {error}", flush=True)
        return 1
    return test(args).run()


if __name__ == "__main__":
    sys.exit(main())
