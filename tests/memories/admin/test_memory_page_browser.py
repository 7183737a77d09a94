"""A memory's page in a real browser, as an operator reads it (issue 34, item 5): the retired Lisbon memory says on
top, in the first screen, that it is retired, why and by what; nothing on it can be edited or deleted; Restore puts
it back into use and retires the Porto memory in its place; HISTORY lists both versions."""

from __future__ import annotations

import pytest

from memories.models import Memory
from tests.conftest import operator_of
from tests.memories.admin.test_memory_page import RESTATED, lisbon_porto  # noqa: F401 - a fixture
from tests.test_admin_browser import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def story(browser) -> dict:
    """Where the story and the form are on the page, and what the story says."""
    return browser.execute_script(
        "const s = document.getElementById('memory-story'), f = document.getElementById('memory_form');"
        "return {top: s.getBoundingClientRect().top, formTop: f.getBoundingClientRect().top,"
        " screen: window.innerHeight, text: s.textContent.replace(/\\s+/g, ' ')}"
    )


def test_a_retired_memory_as_an_operator_reads_it(live_server, transactional_db, browser, lisbon_porto, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    lisbon, porto = lisbon_porto["lisbon"], lisbon_porto["porto"]
    operator_of(lisbon_porto["kb"].bot, password="olga-pass")
    browser.set_window_size(1400, 900)
    log_in(browser, live_server, "olga", "olga-pass")

    browser.get(f"{live_server.url}/admin/memories/memory/{lisbon.pk}/change/")
    shown = story(browser)
    assert shown["top"] < shown["formTop"] and shown["top"] < shown["screen"] / 2, shown  # on top, first screen
    assert shown["text"].strip().startswith("Retired since"), shown["text"]
    assert RESTATED in shown["text"] and f"Replaced by #{porto.pk} “I live in Porto now.” (live)" in shown["text"]
    assert "Read-only" in shown["text"]
    # Read-only, and no Delete for an operator.
    assert not browser.find_elements(By.NAME, "text") and not browser.find_elements(By.NAME, "_save")
    assert not browser.find_elements(By.CSS_SELECTOR, ".deletelink, a[href$='/delete/']")
    assert browser.find_element(By.CSS_SELECTOR, "#memory-versions").text.count("\n") == 2  # a header, 2 versions
    browser.save_screenshot(str(tmp_path / "retired-memory.png"))

    browser.find_element(By.ID, "memory-restore").click()
    WebDriverWait(browser, 20).until(lambda b: "which had replaced it, is retired" in b.page_source)
    shown = story(browser)
    assert shown["text"].strip().startswith("Live"), shown["text"]
    assert f"Replaces #{porto.pk} “I live in Porto now.”" in shown["text"]
    assert browser.find_element(By.NAME, "text").is_enabled()  # editable again
    browser.save_screenshot(str(tmp_path / "restored-memory.png"))
    lisbon.refresh_from_db(), porto.refresh_from_db()
    assert lisbon.is_live and not porto.is_live and porto.superseded_by_id == lisbon.pk

    browser.find_element(By.CSS_SELECTOR, "a.historylink").click()
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.ID, "change-history"))
    history = browser.find_element(By.ID, "content-main").text
    assert "I moved to Lisbon in May." in history and "I live in Porto now." in history
    assert "olga" in history and "Restored." in history
    browser.save_screenshot(str(tmp_path / "memory-history.png"))
    assert Memory.objects.count() == 2
