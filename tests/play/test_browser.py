"""The page in a real browser: Debian's headless Chromium driven by Selenium (chromium-driver). It deals
#1, plays a legal move by drag and drop and one by click-click, undoes them, asks for a hint and plays
it, then deals #11982 and finds the "proven unwinnable" panel with the eight frozen cards marked.

Skipped, with the reason printed, where Chromium, its driver, Selenium or the web extra is missing
(`.ci/run` installs Chromium; `make test` installs the rest). `make screenshot` (PLAY_SCREENSHOT=FILE)
also saves the picture of #11982 that the README shows.
"""
import json
import os
import shutil
import socket
import threading
import time
import urllib.request

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not CHROMIUM or not DRIVER:
    pytest.skip(f"no {'chromium' if not CHROMIUM else 'chromedriver'} on PATH: "
                f"apt-get install -y chromium chromium-driver", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="no selenium: pip install -e '.[test]'")
uvicorn = pytest.importorskip("uvicorn", reason="no uvicorn: the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("starlette", reason="no starlette: the web extra is not installed (pip install -e '.[web]')")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from play.app import create_app  # noqa: E402

FROZEN_11982 = {"AS", "3H", "6H", "4H", "QS", "AC", "QC", "6S"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(cache_dir=str(tmp_path_factory.mktemp("play-cache")), prerender_lean=False)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,980",
              "--hide-scrollbars", "--force-device-scale-factor=1"):
        opts.add_argument(a)
    try:
        d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    except Exception as exc:          # a driver that does not match the browser, no display libraries...
        pytest.skip(f"chromium does not start under chromedriver: {str(exc).splitlines()[0]}")
    d.set_page_load_timeout(30)
    yield d
    d.quit()


def api(server, path, body):
    req = urllib.request.Request(server + path, data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def wait(d, cond, timeout=20):
    return WebDriverWait(d, timeout).until(cond)


def card(d, name):
    return d.find_element(By.CSS_SELECTOR, f'g.card[data-card="{name}"]')


def moves(d):
    return int(d.find_element(By.ID, "move-count").text)


def column_of(d, name):
    return card(d, name).get_attribute("data-col")


def target(d, to):
    if to in ("cell", "home"):
        return d.find_element(By.CSS_SELECTOR, f'.target[data-place="{to}"][data-index="0"]')
    return d.find_element(By.CSS_SELECTOR, f'.target[data-place="col"][data-index="{to - 1}"]')


def deal(d, number):
    box = d.find_element(By.ID, "deal-input")
    box.clear()
    box.send_keys(str(number))
    d.find_element(By.ID, "deal-button").click()
    wait(d, lambda d: d.find_element(By.ID, "deal-label").text == f"Deal #{number}")
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "g.card")) == 52)


def test_play_deal_1_then_see_11982_proven(server, browser, tmp_path):
    d = browser
    t = time.perf_counter()
    d.get(server + "/")
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "g.card")) == 52)
    deal(d, 1)
    start = api(server, "/api/deal", {"deal": 1})["start"]
    legal = api(server, "/api/moves", {"position": start})["moves"]
    to_cell = [m for m in legal if m["to"] == "cell"]
    assert len(to_cell) >= 2 and not [m for m in legal if isinstance(m["to"], int)]   # deal 1 opens so

    # drag and drop: a card into a free cell
    m = to_cell[0]
    before = column_of(d, m["card"])
    ActionChains(d).click_and_hold(card(d, m["card"])).move_by_offset(10, 10) \
        .move_to_element(target(d, "cell")).release().perform()
    wait(d, lambda d: moves(d) == 1)
    assert column_of(d, m["card"]) is None

    # undo it
    d.find_element(By.ID, "undo").click()
    wait(d, lambda d: moves(d) == 0)
    assert column_of(d, m["card"]) == before

    # click-click: another card, then a free cell
    m = to_cell[1]
    card(d, m["card"]).click()
    wait(d, lambda d: "selected" in d.find_element(By.ID, "message").text)
    target(d, "cell").click()
    wait(d, lambda d: moves(d) == 1)
    assert column_of(d, m["card"]) is None          # it left the columns for a free cell
    d.find_element(By.ID, "undo").click()
    wait(d, lambda d: moves(d) == 0)

    # an illegal drop is refused with the reason
    ActionChains(d).click_and_hold(card(d, "6S")).move_by_offset(10, 10).move_to_element(target(d, 3)) \
        .release().perform()
    wait(d, lambda d: "does not go on" in d.find_element(By.ID, "message").text)
    assert moves(d) == 0 and column_of(d, "6S") == "0"

    # hint, then play it
    hint = api(server, "/api/hint", {"position": start})["move"]
    d.find_element(By.ID, "hint-button").click()
    apply_button = wait(d, EC.visibility_of_element_located((By.ID, "hint-apply")))
    assert d.find_element(By.ID, "hint-text").text.startswith("Move 3♦ from column 6 to a free cell.")
    assert d.find_elements(By.CSS_SELECTOR, f'g.card[data-card="{hint["card"]}"] rect.mark.hint')
    apply_button.click()
    wait(d, lambda d: moves(d) == 1)
    assert column_of(d, hint["card"]) is None

    # the verdict of deal 1: winnable, with a solution to step through
    wait(d, lambda d: "winnable" in d.find_element(By.ID, "verdict").get_attribute("class"))
    d.find_element(By.ID, "show-solution").click()
    d.find_element(By.ID, "sol-next").click()
    assert d.find_element(By.ID, "sol-count").text.startswith("1 / ")
    d.find_element(By.ID, "sol-close").click()

    # deal 11982: the known deal is marked at once, then proven with the frozen cards outlined
    deal(d, 11982)
    assert "known unsolvable" in d.find_element(By.ID, "badges").text
    wait(d, lambda d: "unwinnable" in d.find_element(By.ID, "verdict").get_attribute("class"), timeout=60)
    panel = d.find_element(By.ID, "verdict").text
    assert "PROVEN" in panel.upper() and "unwinnable" in panel
    assert d.find_element(By.ID, "v-states").text == "84,767"
    assert d.find_element(By.ID, "v-maxhome").text == "2"
    assert d.find_element(By.ID, "v-theorem").text == (
        "theorem freecell_11982_unwinnable : ∀ s, _root_.FreeCell.Reachable _root_.FreeCell.Rules.standard "
        "(_root_.FreeCell.msDeal 11982) s → ¬ _root_.FreeCell.Won s")
    frozen = {g.get_attribute("data-card") for g in d.find_elements(By.CSS_SELECTOR, "g.card.frozen")}
    assert frozen == FROZEN_11982
    assert d.find_element(By.ID, "dl-cert").get_attribute("href").endswith("/api/files/Deal11982/Deal11982.cert")
    assert d.find_element(By.ID, "dl-lean").get_attribute("href").endswith("/api/files/Deal11982/Deal11982.lean")

    shot = os.environ.get("PLAY_SCREENSHOT") or str(tmp_path / "play-11982.png")
    d.execute_script("window.scrollTo(0, 0)")
    assert d.save_screenshot(shot)
    with open(shot, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot: {shot} ({time.perf_counter() - t:.1f} s in the browser)")
