#!/usr/bin/python3
"""A page's first load on an emulated mid-range phone on slow 4G, in headless Debian chromium.

Run by tenbin-bench's `pageload` section (Sources/tenbin-bench/PageLoadBenchmark.swift):

    page-load.py --runs N [--dpr 3] URL...

Each run of each URL starts a fresh browser (an empty cache), emulates a 390x844 phone at
device pixel ratio 3 (or --dpr) with the CPU slowed 4x, and throttles the network as Lighthouse's slow 4G
does (150 ms round trips, 1.6 Mbit/s down, 750 kbit/s up), all over the DevTools protocol. It
loads the URL, waits until the network has been quiet for 1.5 s after the load event, and
reads what went over the wire (the DevTools log's encoded bytes, headers included) and the
Largest Contentful Paint (a PerformanceObserver set before the page's own scripts run).
Prints one JSON object per URL: the median run's numbers, and each kind's bytes.
"""

import argparse
import json
import statistics
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

BOUND_SECONDS = 60  # a generous bound for a loaded machine, not a timing goal
QUIET_SECONDS = 1.5

LCP_OBSERVER = """
window.__lcp = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__lcp = entry.startTime;
}).observe({ type: "largest-contentful-paint", buffered: true });
"""


def browser(dpr):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-extensions", "--disable-background-networking", "--lang=en"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(BOUND_SECONDS)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 750e3 / 8})
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": dpr, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 4})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LCP_OBSERVER})
    return driver


def kind(url, mime):
    if "/timeline" in url:
        return "charts"
    if mime.startswith("image/"):
        return "images"
    if "javascript" in mime:
        return "script"
    if "css" in mime:
        return "css"
    if "font" in mime:
        return "fonts"
    if "html" in mime:
        return "html"
    return "other"


def load(url, dpr):
    driver = browser(dpr)
    try:
        driver.get_log("performance")  # what the blank tab did
        driver.get(url)
        requests = {}  # id -> {url, mime, bytes, done}
        deadline = time.monotonic() + BOUND_SECONDS
        last_activity = time.monotonic()
        while time.monotonic() < deadline:
            entries = driver.get_log("performance")
            for entry in entries:
                message = json.loads(entry["message"])["message"]
                method, params = message["method"], message.get("params", {})
                if method == "Network.requestWillBeSent":
                    requests.setdefault(params["requestId"], {"url": params["request"]["url"], "mime": "", "bytes": 0, "done": False})
                    last_activity = time.monotonic()
                elif method == "Network.responseReceived":
                    request = requests.setdefault(params["requestId"], {"url": params["response"]["url"], "mime": "", "bytes": 0, "done": False})
                    request["mime"] = params["response"].get("mimeType", "")
                elif method == "Network.dataReceived" and params["requestId"] in requests:
                    requests[params["requestId"]]["bytes"] += params.get("encodedDataLength", 0)
                    last_activity = time.monotonic()
                elif method == "Network.loadingFinished" and params["requestId"] in requests:
                    # The whole transfer, headers included (what dataReceived added so far is a part of it).
                    requests[params["requestId"]]["bytes"] = params["encodedDataLength"]
                    requests[params["requestId"]]["done"] = True
                    last_activity = time.monotonic()
            complete = driver.execute_script("return document.readyState") == "complete"
            if complete and time.monotonic() - last_activity >= QUIET_SECONDS:
                break
            time.sleep(0.1)
        else:
            raise SystemExit(f"Error: {url} did not finish loading within {BOUND_SECONDS} s")
        lcp = driver.execute_script("return window.__lcp")
        element = driver.execute_script("""
            const entries = performance.getEntriesByType('largest-contentful-paint');
            const last = entries[entries.length - 1];
            return last && last.element ? last.element.tagName + (last.url ? ' ' + last.url.split('?')[1] : '') : '';""")
        kinds = {}
        for request in requests.values():
            if request["url"].startswith("data:"):
                continue
            name = kind(request["url"], request["mime"])
            kinds[name] = kinds.get(name, 0) + request["bytes"]
        images = sorted({r["url"].split("/")[-1][:12] + "…?" + r["url"].split("?")[-1] for r in requests.values()
                         if r["mime"].startswith("image/") and "/thumbs/" in r["url"]})
        first_screen = sum(value for name, value in kinds.items() if name != "charts")
        return {"bytes": first_screen, "lcp_ms": lcp, "kinds": kinds, "lcp_element": element, "thumbnails": len(images),
                "widths": sorted({r["url"].split("w=")[-1] for r in requests.values() if "/thumbs/" in r["url"]})}
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dpr", type=float, default=3)
    parser.add_argument("urls", nargs="+")
    args = parser.parse_args()
    for url in args.urls:
        runs = [load(url, args.dpr) for _ in range(args.runs)]
        runs.sort(key=lambda run: run["lcp_ms"])
        median = runs[len(runs) // 2]
        median["url"] = url
        median["bytes_median"] = statistics.median(run["bytes"] for run in runs)
        median["lcp_ms_median"] = statistics.median(run["lcp_ms"] for run in runs)
        print(json.dumps(median), flush=True)


if __name__ == "__main__":
    main()
