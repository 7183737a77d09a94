"""The operators' console in a real browser (Debian's headless Chromium through Selenium), issue 20: the dashboard
draws its charts (Chart.js, served by kbsite itself) from a populated database, and an operator of bot alpha sees
nothing of bot bravo's on any page they open, where a superuser sees both; served as ``manage.py serve`` serves
them, admin pages load every script on each of many reloads (issue 31)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from kbsite.keys import key_issue
from kbsite.models import Bot, DailyStat, EndUser, JobRun, KnowledgeBase
from memories.models import Memory, ReviewItem
from tests.conftest import operator_of
from tests.kbsite.test_operators import bot_data

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def log_in(browser, live_server, username: str, password: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{live_server.url}/admin/login/?next=/admin/")
    browser.find_element(By.NAME, "username").send_keys(username)
    browser.find_element(By.NAME, "password").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    # Until the dashboard is in: a page asked for while the login is still being posted would race it.
    WebDriverWait(browser, 30).until(lambda b: b.title.startswith("Dashboard"))


def charts_drawn(browser) -> list[dict]:
    """What Chart.js drew: each chart's canvas size and its datasets' sums."""
    return browser.execute_script(
        "return (window.kbsiteCharts || []).map(c => ({id: c.canvas.id, width: c.width, height: c.height,"
        " sums: c.data.datasets.map(d => d.data.reduce((a, b) => a + b, 0))}))"
    )


def test_the_dashboard_draws_its_charts_from_the_database(live_server, transactional_db, admin_user, browser, tmp_path):
    from selenium.webdriver.support.ui import WebDriverWait

    alpha, bravo = bot_data("alpha"), bot_data("bravo")
    today = timezone.now().date()
    for days_ago in range(10):
        DailyStat.objects.create(
            kb=alpha["kb"],
            day=today - timedelta(days=days_ago),
            turns=10 + days_ago,
            recalls=100,
            llm_calls=3,
            tokens_in=900,
            tokens_out=100,
            facts_added=4,
        )
    DailyStat.objects.create(kb=bravo["kb"], day=today, turns=5, recalls=7)

    log_in(browser, live_server, "admin", "password")
    WebDriverWait(browser, 20).until(lambda b: len(charts_drawn(b)) == 4)
    charts = {c["id"]: c for c in charts_drawn(browser)}
    assert all(c["width"] > 100 and c["height"] > 100 for c in charts.values()), charts
    assert charts["chart-received"]["sums"][0] == sum(10 + d for d in range(10)) + 5  # turns, both bots
    assert charts["chart-recalls"]["sums"] == [1007, 0]  # recalls, and requests refused (429): none
    assert charts["chart-llm"]["sums"] == [30, 10000]
    assert "2 failed jobs" in browser.page_source  # the banner: bot_data leaves a failed job in each bot
    assert JobRun.objects.filter(status=JobRun.Status.FAILED).count() == 2
    browser.set_window_size(1400, 1000)
    browser.save_screenshot(str(tmp_path / "dashboard.png"))


def test_an_operator_sees_only_their_bot_page_by_page(live_server, transactional_db, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    alpha, bravo = bot_data("alpha"), bot_data("bravo")
    operator_of(alpha["bot"], password="olga-pass")

    log_in(browser, live_server, "olga", "olga-pass")
    WebDriverWait(browser, 20).until(lambda b: len(charts_drawn(b)) == 4)
    pages = [
        "/admin/",
        "/admin/memories/memory/?status=all",
        "/admin/memories/memory/?q=tea&status=all",
        "/admin/kbsite/knowledgebase/",
        f"/admin/kbsite/knowledgebase/{alpha['kb'].pk}/change/",
        "/admin/kbsite/enduser/",
        "/admin/kbsite/jobrun/",
        "/admin/kbsite/bot/",
        "/admin/knowledge/document/",
        "/admin/memories/insight/",
        "/admin/kbsite/knowledgebase/recall/",
        "/admin/knowledge/document/upload/",
    ]
    for page in pages:
        browser.get(f"{live_server.url}{page}")
        assert "alpha" in browser.page_source, page
        assert "bravo" not in browser.page_source, page
    # A form's choices of KB (an autocomplete) offer alpha's only.
    browser.get(f"{live_server.url}/admin/memories/memory/add/")
    browser.find_element(By.CSS_SELECTOR, "#id_kb + .select2").click()
    WebDriverWait(browser, 10).until(lambda b: "alpha/alpha-kb" in b.page_source)
    assert "bravo" not in browser.page_source
    # The recall console offers alpha's KB only, and finds alpha's memory.
    browser.get(f"{live_server.url}/admin/kbsite/knowledgebase/recall/")
    assert [o.text for o in Select(browser.find_element(By.NAME, "kb")).options] == ["---------", "alpha/alpha-kb"]
    Select(browser.find_element(By.NAME, "kb")).select_by_visible_text("alpha/alpha-kb")
    browser.find_element(By.NAME, "query").send_keys("tea")
    browser.find_element(By.NAME, "user_id").send_keys("alpha-user")
    browser.find_element(By.CSS_SELECTOR, "form input[type=submit]").click()
    WebDriverWait(browser, 60).until(lambda b: 'id="context-block"' in b.page_source)  # the results page
    assert "The alpha user likes tea." in browser.page_source
    # Bravo's rows by their address: not there for her.
    browser.get(f"{live_server.url}/admin/memories/memory/{bravo['memory'].pk}/change/")
    assert "doesn’t exist" in browser.page_source and "bravo user" not in browser.page_source

    # A superuser sees both bots.
    browser.delete_all_cookies()
    User.objects.create_superuser("root", password="root-pass")
    log_in(browser, live_server, "root", "root-pass")
    browser.get(f"{live_server.url}/admin/memories/memory/?status=all")
    assert "The alpha user likes tea." in browser.page_source and "The bravo user likes tea." in browser.page_source


def test_the_main_lists_read_at_1400_pixels(live_server, transactional_db, admin_user, browser):
    """The memory, job run, knowledge base and end user lists fit a 1,400-pixel window: no sideways scrolling, and
    a memory's text is not squeezed to a word a line."""
    data = bot_data("alpha")
    data["memory"].text = "Alice moved from Lisbon to Porto in November and works night shifts at the hospital."
    data["memory"].save()
    JobRun.objects.create(
        kb=data["kb"],
        kind=JobRun.Kind.INGEST_MESSAGES,
        status=JobRun.Status.SUCCEEDED,
        mode="heuristic",
        target="unprocessed turns",
        items_read=10,
        facts_added=9,
        facts_skipped=1,
        tokens_in=123456,
        tokens_out=7890,
    )
    browser.set_window_size(1400, 900)
    log_in(browser, live_server, "admin", "password")
    for page in ("memories/memory", "kbsite/jobrun", "kbsite/knowledgebase", "kbsite/enduser"):
        browser.get(
            f"{live_server.url}/admin/{page}/?status=all"
            if page == "memories/memory"
            else f"{live_server.url}/admin/{page}/"
        )
        wide, room = browser.execute_script(
            "const r = document.querySelector('.results'); return [r.scrollWidth, r.clientWidth]"
        )
        assert wide <= room, (page, wide, room)
    browser.get(f"{live_server.url}/admin/memories/memory/")
    text_width = browser.execute_script("return document.querySelector('tbody .field-short_text').clientWidth")
    assert text_width > 300, text_width


# Each resource the page loaded and its HTTP status (0: none, such as a failed connection).
RESOURCES = "return performance.getEntriesByType('resource').map(e => [e.name, e.initiatorType, e.responseStatus])"
# What the admin's scripts define once they have run: jQuery and django.jQuery, actions.js, urlify.js, select2's.
ADMIN_SCRIPTS_RAN = (
    "return [typeof django !== 'undefined' && typeof django.jQuery === 'function', typeof window.Actions,"
    " typeof window.URLify, typeof django.jQuery.fn.select2]"
)


def test_admin_pages_load_every_script_on_each_reload(asgi_server, transactional_db, admin_user, browser):
    """Ten loads each of the knowledge base list, a knowledge base's page and the new one's (select2 for its bot)
    from the ASGI server as serve runs it, the browser's cache off: every script and stylesheet answered 200, and
    the admin's scripts ran (issue 31: 2 of 4 loads lost actions.js, urlify.js or select2's to a 500)."""
    from selenium.webdriver.support.ui import WebDriverWait

    data = bot_data("alpha")
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})  # each load asks for every file
    log_in(browser, asgi_server, "admin", "password")
    # The list, a KB's page, and the new KB's page with its bot's autocomplete (select2).
    pages = {
        "/admin/kbsite/knowledgebase/": "undefined",
        f"/admin/kbsite/knowledgebase/{data['kb'].pk}/change/": "undefined",
        "/admin/kbsite/knowledgebase/add/": "function",
    }
    for load in range(10):
        for page, select2 in pages.items():
            browser.get(f"{asgi_server.url}{page}")
            WebDriverWait(browser, 30).until(lambda b: b.execute_script("return document.readyState") == "complete")
            resources = browser.execute_script(RESOURCES)
            loaded = [(name, status) for name, kind, status in resources if kind in ("script", "link")]
            failed = [(name, status) for name, status in loaded if status != 200]
            assert len(loaded) >= 10 and not failed, (load, page, failed)
            assert any(name.endswith("/admin/js/actions.js") for name, _ in loaded), (load, page, loaded)
            ran = browser.execute_script(ADMIN_SCRIPTS_RAN)
            assert ran == [True, "function", "function", select2], (load, page, ran)


def _conflict(kb, user, n: int):
    older = Memory.objects.create(kb=kb, end_user=user, text=f"I live in Town{n}.", entities=["alice"])
    newer = Memory.objects.create(kb=kb, end_user=user, text=f"I live in City{n} now.", entities=["alice"])
    return ReviewItem.objects.create(kb=kb, end_user=user, kind="conflict", older=older, newer=newer)


def test_the_review_queue_settles_its_items_in_a_browser(live_server, transactional_db, admin_user, browser):
    """Issue 42: Accept on the list, Revert on an item's own page and the bulk "Accept the selected" each settle
    their items (before, every button answered "CSRF verification failed" or posted to the list), and the API then
    reports each as settled."""
    import requests
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    bot = Bot.objects.create(name="reviews")
    _, key = key_issue(bot)
    kb = KnowledgeBase.objects.create(bot=bot, name="notes", always_on=True)
    user = EndUser.objects.create(bot=bot, external_id="alice")
    first, second, third = (_conflict(kb, user, n) for n in range(3))

    def status(item) -> str:
        return ReviewItem.objects.get(pk=item.pk).status

    def button(item, name: str):
        return browser.find_element(By.CSS_SELECTOR, f"button[formaction$='/{item.pk}/{name}/']")

    log_in(browser, live_server, "admin", "password")
    browser.get(f"{live_server.url}/admin/memories/reviewitem/")
    button(first, "accept").click()
    WebDriverWait(browser, 20).until(lambda b: status(first) == "accepted")
    assert "settled" in browser.page_source and "CSRF" not in browser.page_source

    browser.get(f"{live_server.url}/admin/memories/reviewitem/{second.pk}/change/")
    button(second, "revert").click()
    WebDriverWait(browser, 20).until(lambda b: status(second) == "reverted")

    browser.get(f"{live_server.url}/admin/memories/reviewitem/")
    browser.find_element(By.CSS_SELECTOR, f"input[name='_selected_action'][value='{third.pk}']").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("accept_selected")
    browser.find_element(By.CSS_SELECTOR, "button[name='index']").click()
    WebDriverWait(browser, 20).until(lambda b: status(third) == "accepted")

    listed = requests.get(
        f"{live_server.url}/api/v1/reviews/",
        params={"status": "accepted"},
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    ).json()["results"]
    assert {item["id"] for item in listed} == {first.pk, third.pk}
    assert Memory.objects.get(pk=second.older_id).is_live and not Memory.objects.get(pk=second.newer_id).is_live
