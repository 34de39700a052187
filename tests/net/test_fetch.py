"""The fetcher's caps and the unfurl of a page, against the loopback site."""

from __future__ import annotations

import base64
import io
from typing import Any

import httpx
import pytest
from PIL import Image

from layoutkit.net import (
    MAX_BYTES,
    Fetched,
    FetchError,
    Unfurler,
    framable,
    picture_data_url,
    read_page,
)
from tests.net.conftest import PUBLIC6, SITE


def test_a_page_unfurls_from_open_graph_with_its_icon_resolved(make_fetcher: Any) -> None:
    page = make_fetcher().get(f"http://{SITE}/")
    read = read_page(page)
    assert read["meta"] == {
        "url": f"http://{SITE}/",
        "contentType": "text/html",
        "title": "The OG title",
        "description": "What the page is about.",
        "siteName": "Example Site",
        "image": f"http://{SITE}/img/card.png",
    }
    assert read["icon"] == f"http://{SITE}/favicon-32.png"


def test_twitter_cards_fill_in_and_an_icon_must_be_http(make_fetcher: Any) -> None:
    read = read_page(make_fetcher().get(f"http://{SITE}/twitter"))
    assert read["meta"]["title"] == "Twitter title"
    assert read["meta"]["description"] == "Twitter description"
    # The javascript: icon is dropped; the touch icon on another host is kept.
    assert read["icon"] == "https://cdn.example.org/t.png"


def test_plain_html_gives_title_and_meta_description(make_fetcher: Any) -> None:
    read = read_page(make_fetcher().get(f"http://{SITE}/title"))
    assert read["meta"]["title"] == "Only a title"
    assert read["meta"]["description"] == "A plain meta description."
    assert read["icon"] is None


def test_an_ipv6_site_is_fetched_through_its_checked_address(
    make_fetcher: Any, router: Any
) -> None:
    page = make_fetcher().get("http://v6site.example.net/title")
    assert page.status == 200 and page.address == PUBLIC6
    assert router.dialled[-1] == PUBLIC6


def test_redirects_are_followed_up_to_five(make_fetcher: Any) -> None:
    page = make_fetcher().get(f"http://{SITE}/hop/5")
    assert page.status == 200 and len(page.redirects) == 5
    assert page.url == f"http://{SITE}/hop/0"
    with pytest.raises(FetchError) as caught:
        make_fetcher().get(f"http://{SITE}/hop/6")
    assert caught.value.code == "too_many_redirects"


def test_the_body_is_cut_at_two_mebibytes(make_fetcher: Any) -> None:
    page = make_fetcher().get(f"http://{SITE}/big")
    assert page.truncated and len(page.body) == MAX_BYTES
    assert read_page(page)["meta"]["title"] == "Big"


def test_a_compressed_body_is_inflated_no_further_than_the_cap(make_fetcher: Any) -> None:
    page = make_fetcher().get(f"http://{SITE}/bomb")
    assert page.truncated and len(page.body) == MAX_BYTES
    assert read_page(page)["meta"]["title"] == "Bomb"


def test_the_whole_fetch_has_one_time_limit(make_fetcher: Any, site: Any) -> None:
    # The page drips a comment every 0.1 s for 10 s: each read succeeds, the total does not.
    with pytest.raises(FetchError) as caught:
        make_fetcher(time_limit=0.5).get(f"http://{SITE}/slow")
    assert caught.value.code == "timed_out"
    # The fetch hung up long before the page ended (it once read on until the end,
    # waiting for 64 KiB that a dripping page never sends).
    assert site.drips.get(timeout=30) < 50


def test_a_resolver_that_hangs_counts_against_the_time_limit(make_fetcher: Any) -> None:
    import threading

    from layoutkit.net import Fetcher

    release = threading.Event()

    def hung(host: str, port: int) -> list[str]:
        release.wait(10)
        return []

    try:
        with pytest.raises(FetchError) as caught:
            Fetcher(resolver=hung, time_limit=0.3).get(f"http://{SITE}/")
        assert caught.value.code == "timed_out"
    finally:
        release.set()


def test_proxy_settings_from_the_environment_are_ignored(
    make_fetcher: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, "http://10.0.0.1:3128")
    page = make_fetcher().get(f"http://{SITE}/title")
    assert page.status == 200


def test_https_verifies_the_certificate_for_the_name(make_fetcher: Any) -> None:
    # The loopback site speaks plain HTTP on the port the dial hook sends https to:
    # the TLS handshake fails, and the failure is a refusal, not a plain-text fallback.
    with pytest.raises(FetchError) as caught:
        make_fetcher().get(f"https://{SITE}/")
    assert caught.value.code == "unreachable"


def _headers(*pairs: tuple[str, str]) -> Fetched:
    return Fetched(
        "http://x.example.net/", "1.1.1.1", 200, httpx.Headers(list(pairs)), b"", False, ()
    )


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ((), True),
        ((("x-frame-options", "DENY"),), False),
        ((("x-frame-options", "sameorigin"),), False),
        ((("x-frame-options", "ALLOW-FROM https://a.example"),), True),
        ((("x-frame-options", "allowall, DENY"),), False),
        ((("content-security-policy", "frame-ancestors 'none'"),), False),
        ((("content-security-policy", "default-src 'self'; frame-ancestors 'self'"),), False),
        ((("content-security-policy", "frame-ancestors https://a.example"),), False),
        ((("content-security-policy", "frame-ancestors *"),), True),
        ((("content-security-policy", "frame-ancestors *"), ("x-frame-options", "DENY")), True),
        (
            (
                ("content-security-policy", "frame-ancestors *"),
                ("content-security-policy", "frame-ancestors 'none'"),
            ),
            False,
        ),
        ((("content-security-policy-report-only", "frame-ancestors 'none'"),), True),
        ((("content-security-policy", "default-src 'none'"),), True),
    ],
)
def test_frameability_follows_x_frame_options_and_frame_ancestors(
    headers: tuple[tuple[str, str], ...], expected: bool
) -> None:
    assert framable(_headers(*headers)) is expected


def test_frameability_is_read_from_the_live_response(make_fetcher: Any) -> None:
    fetcher = make_fetcher()
    deny = fetcher.get(f"http://{SITE}/headers?x-frame-options=DENY")
    none = fetcher.get(f"http://{SITE}/headers?csp=frame-ancestors%20%27none%27")
    star = fetcher.get(f"http://{SITE}/headers?csp=frame-ancestors%20*")
    assert (framable(deny), framable(none), framable(star)) == (False, False, True)


def test_the_unfurler_turns_every_outcome_into_card_fields(make_fetcher: Any) -> None:
    unfurler = Unfurler(make_fetcher())
    ok = unfurler.unfurl(f"http://{SITE}/").fields
    assert ok["meta"]["title"] == "The OG title" and ok["framable"] is True
    assert ok["meta"]["image"] == f"http://{SITE}/img/card.png"
    assert _picture(ok["icon"]) == ((32, 32), "PNG")
    # The page's image is kept as a preview that fits 480x300, drawn without the site.
    assert _picture(ok["meta"]["imageData"]) == ((480, 252), "JPEG")
    assert ok["shots"] == {"reason": "no capture sidecar is configured"}
    assert "error" not in ok
    refused = unfurler.unfurl("http://127.0.0.1/").fields
    assert refused == {"error": "127.0.0.1 is a loopback address"}
    missing = unfurler.unfurl(f"http://{SITE}/missing").fields
    assert missing == {"error": "the site answered HTTP 404"}
    pdf = unfurler.unfurl(f"http://{SITE}/pdf").fields
    assert pdf["meta"] == {"url": f"http://{SITE}/pdf", "contentType": "application/pdf"}


def _picture(src: str) -> tuple[tuple[int, int], str]:
    head, _, data = src.partition(",")
    assert head in ("data:image/png;base64", "data:image/jpeg;base64")
    with Image.open(io.BytesIO(base64.b64decode(data))) as img:
        return img.size, str(img.format)


def test_pictures_in_private_space_are_never_fetched(
    make_fetcher: Any, site: Any, inside: Any
) -> None:
    seen, reached = len(site.paths), inside.accepted
    fields = Unfurler(make_fetcher()).unfurl(f"http://{SITE}/private-pictures").fields
    assert fields["meta"]["title"] == "Pictures elsewhere"
    assert "icon" not in fields and "imageData" not in fields["meta"]
    assert site.paths[seen:] == ["/private-pictures"]
    assert inside.accepted == reached


def test_a_picture_bomb_is_not_decoded() -> None:
    out = io.BytesIO()
    Image.new("1", (6000, 6000)).save(out, format="PNG")  # 36 Mpx in a few kB
    assert picture_data_url(out.getvalue(), (32, 32), "PNG") is None
    assert picture_data_url(b"<svg onload=alert(1)>", (32, 32), "PNG") is None


def test_a_public_ipv6_literal_is_dialled_as_written(make_fetcher: Any, router: Any) -> None:
    page = make_fetcher().get(f"http://[{PUBLIC6}]/title")
    assert page.status == 200 and page.address == PUBLIC6 and router.dialled[-1] == PUBLIC6


def test_a_public_address_in_another_spelling_is_fetched_as_that_address(
    make_fetcher: Any, router: Any, site: Any
) -> None:
    # 1572395042 and 0x5d.0xb8.0xd8.0x22 both mean 93.184.216.34, the test site's address.
    for url in ("http://1572395042/title", "http://0x5d.0xb8.0xd8.0x22/title"):
        page = make_fetcher().get(url)
        assert page.status == 200 and router.dialled[-1] == "93.184.216.34"
        assert page.url == "http://93.184.216.34/title" and site.hosts[-1] == "93.184.216.34"
