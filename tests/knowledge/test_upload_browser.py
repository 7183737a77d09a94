"""A real browser (Debian's headless Chromium, driven by Selenium through its chromedriver) uploads two files
through the staff form, and the real job workers take both to "done"."""

from __future__ import annotations

import time

import pytest

from knowledge.models import Document

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def test_staff_upload_two_files_and_see_both_done(live_server, admin_user, kb, qcluster, browser, tmp_path):
    """Log in as staff, choose two files in one file input, submit, and watch the status list reach done."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    first = tmp_path / "handbook.md"
    first.write_text("# Handbook\n\nHolidays are booked in the HR portal two weeks ahead.\n")
    second = tmp_path / "prices.csv"
    second.write_text("product,price\nwidget,4.50\ngadget,12.00\n")

    browser.get(f"{live_server.url}/admin/login/?next=/admin/knowledge/document/")
    browser.find_element(By.NAME, "username").send_keys("admin")
    browser.find_element(By.NAME, "password").send_keys("password")
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    upload = (By.CSS_SELECTOR, ".object-tools a[href$='/upload/']")  # "Upload files", shown in capitals
    WebDriverWait(browser, 30).until(ec.presence_of_element_located(upload)).click()

    Select(browser.find_element(By.NAME, "kb")).select_by_visible_text(str(kb))
    browser.find_element(By.NAME, "files").send_keys(f"{first}\n{second}")
    browser.find_element(By.ID, "upload-submit").click()

    WebDriverWait(browser, 30).until(ec.presence_of_element_located((By.ID, "upload-status")))
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        rows = browser.find_elements(By.CSS_SELECTOR, "#upload-status tbody tr")
        statuses = [row.get_attribute("data-status") for row in rows]
        if statuses == ["done", "done"]:
            break
        assert "failed" not in statuses, browser.page_source
        time.sleep(1)  # the page refreshes itself; read it again
    else:
        raise AssertionError(f"uploads did not reach done: {statuses}")
    assert "All uploads are finished." in browser.find_element(By.ID, "upload-summary").text
    assert sorted(Document.objects.values_list("source", flat=True)) == ["handbook.md", "prices.csv"]
    assert all(d.chunks.exists() for d in Document.objects.all())
