"""Hostile links: none may make the fetcher connect anywhere but a public address.

Every vector runs against the stub resolver and the two loopback servers of
``conftest``; the dial hook would route a non-public address to ``inside``, so
``inside.accepted`` staying at zero proves that the check, not the test
wiring, stopped each one.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from layoutkit.net import FetchError
from tests.net.conftest import PUBLIC, SITE

#: (id, url, extra resolver answers, expected code)
DIRECT: list[tuple[str, str, dict[str, Any], str]] = [
    ("loopback", "http://127.0.0.1/", {}, "not_public"),
    ("decimal", "http://2130706433/", {}, "not_public"),
    ("octal", "http://0177.0.0.1/", {}, "not_public"),
    ("hex-dotted", "http://0x7f.0.0.1/", {}, "not_public"),
    ("hex-whole", "http://0x7f000001/", {}, "not_public"),
    ("hex-short", "http://0x7f.1/", {}, "not_public"),
    ("short", "http://127.1/", {}, "not_public"),
    ("zero", "http://0/", {}, "not_public"),
    ("unspecified", "http://0.0.0.0/", {}, "not_public"),
    ("private-10", "http://10.0.0.1/", {}, "not_public"),
    ("private-172", "http://172.16.5.4/", {}, "not_public"),
    ("private-192", "http://192.168.1.1/", {}, "not_public"),
    ("metadata", "http://169.254.169.254/latest/meta-data/", {}, "not_public"),
    ("shared", "http://100.64.0.1/", {}, "not_public"),
    ("doc-1", "http://192.0.2.1/", {}, "not_public"),
    ("doc-2", "http://198.51.100.7/", {}, "not_public"),
    ("doc-3", "http://203.0.113.9/", {}, "not_public"),
    ("benchmark", "http://198.18.0.1/", {}, "not_public"),
    ("multicast", "http://224.0.0.1/", {}, "not_public"),
    ("reserved", "http://240.0.0.1/", {}, "not_public"),
    ("broadcast", "http://255.255.255.255/", {}, "not_public"),
    ("octal-private", "http://012.0.0.1/", {}, "not_public"),
    ("bad-octal", "http://0128.0.0.1/", {}, "bad_host"),
    ("v6-loopback", "http://[::1]/", {}, "not_public"),
    ("v6-unspecified", "http://[::]/", {}, "not_public"),
    ("v6-mapped", "http://[::ffff:127.0.0.1]/", {}, "not_public"),
    ("v6-mapped-hex", "http://[::ffff:7f00:1]/", {}, "not_public"),
    ("v6-mapped-metadata", "http://[::ffff:a9fe:a9fe]/", {}, "not_public"),
    ("v6-compatible", "http://[::127.0.0.1]/", {}, "not_public"),
    ("v6-translated", "http://[::ffff:0:10.0.0.1]/", {}, "not_public"),
    ("6to4-loopback", "http://[2002:7f00:1::1]/", {}, "not_public"),
    ("6to4-metadata", "http://[2002:a9fe:a9fe::]/", {}, "not_public"),
    ("teredo", "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", {}, "not_public"),
    ("nat64", "http://[64:ff9b::127.0.0.1]/", {}, "not_public"),
    ("nat64-local", "http://[64:ff9b:1::a00:1]/", {}, "not_public"),
    ("zone-id", "http://[fe80::1%25eth0]/", {}, "bad_host"),
    ("zone-id-raw", "http://[fe80::1%eth0]/", {}, "bad_host"),
    ("link-local-v6", "http://[fe80::1]/", {}, "not_public"),
    ("ula", "http://[fc00::1]/", {}, "not_public"),
    ("multicast-v6", "http://[ff02::1]/", {}, "not_public"),
    ("doc-v6", "http://[2001:db8::1]/", {}, "not_public"),
    ("localhost", "http://localhost/", {"localhost": ["127.0.0.1"]}, "not_public"),
    ("localhost-dot", "http://LOCALHOST./", {"localhost": ["127.0.0.1"]}, "not_public"),
    ("localhost-sub", "http://api.localhost/", {"api.localhost": [PUBLIC]}, "not_public"),
    ("localdomain", "http://localhost.localdomain/", {}, "not_public"),
    ("single-label", "http://intranet/", {"intranet": [PUBLIC]}, "not_public"),
    ("mdns", "http://printer.local/", {"printer.local": [PUBLIC]}, "not_public"),
    ("userinfo-public", "http://public@127.0.0.1/", {}, "url_credentials"),
    ("userinfo-site", f"http://{SITE}@127.0.0.1/", {}, "url_credentials"),
    ("userinfo-port", "http://127.0.0.1:80@site.example.net/", {}, "url_credentials"),
    ("userinfo-password", f"http://user:pw@{SITE}/", {}, "url_credentials"),
    ("backslash", "http://127.0.0.1\\@site.example.net/", {}, "bad_url"),
    ("full-width", "http://①②⑦.0.0.1/", {}, "not_public"),
    ("percent-host", "http://%31%32%37.0.0.1/", {}, "bad_host"),
    ("fragment-at", "http://127.0.0.1#@site.example.net/", {}, "not_public"),
    ("file", "file:///etc/passwd", {}, "bad_url"),
    ("gopher", "gopher://127.0.0.1:70/", {}, "bad_url"),
    ("odd-port", f"http://{SITE}:22/", {}, "bad_port"),
    ("space", "http://site.example.net /", {}, "bad_url"),
    (
        "dns-loopback",
        "http://loopback.example.net/",
        {"loopback.example.net": ["127.0.0.1"]},
        "not_public",
    ),
    (
        "dns-one-private",
        "http://mixed.example.net/",
        {"mixed.example.net": [PUBLIC, "10.0.0.5"]},
        "not_public",
    ),
    (
        "dns-aaaa-private",
        "http://v6.example.net/",
        {"v6.example.net": [PUBLIC, "fd00::1"]},
        "not_public",
    ),
    (
        "dns-mapped",
        "http://mapped.example.net/",
        {"mapped.example.net": ["::ffff:10.0.0.1"]},
        "not_public",
    ),
    (
        "dns-metadata",
        "http://meta.example.net/",
        {"meta.example.net": ["169.254.169.254"]},
        "not_public",
    ),
    ("dns-zero", "http://zero.example.net/", {"zero.example.net": ["0.0.0.0"]}, "not_public"),
    ("dns-junk", "http://junk.example.net/", {"junk.example.net": ["not-an-ip"]}, "unresolved"),
    ("dns-empty", "http://empty.example.net/", {"empty.example.net": []}, "unresolved"),
    ("dns-none", "http://nowhere.example.net/", {}, "unresolved"),
]

#: Redirects from the public site into private space: (id, Location, extra answers).
REDIRECTS: list[tuple[str, str, dict[str, Any]]] = [
    ("to-loopback", "http://127.0.0.1/", {}),
    ("to-v6-loopback", "http://[::1]:80/", {}),
    ("to-localhost", "http://localhost/admin", {}),
    ("to-metadata", "http://169.254.169.254/latest/meta-data/", {}),
    ("to-decimal", "http://2130706433/", {}),
    ("to-mapped", "http://[::ffff:192.168.0.1]/", {}),
    ("to-private-name", "http://loopback.example.net/", {"loopback.example.net": ["127.0.0.1"]}),
    ("to-file", "file:///etc/passwd", {}),
    ("to-userinfo", f"http://{SITE}@10.0.0.1/", {}),
    ("to-odd-port", f"http://{SITE}:6379/", {}),
    ("to-protocol-relative", "//127.0.0.1/x", {}),
]


def _hop(location: str) -> str:
    return f"http://{SITE}/to?u={quote(location, safe='')}"


@pytest.mark.parametrize(
    ("url", "extra", "code"), [v[1:] for v in DIRECT], ids=[v[0] for v in DIRECT]
)
def test_a_hostile_link_is_refused_before_any_connection(
    make_fetcher: Any, site: Any, inside: Any, url: str, extra: dict[str, Any], code: str
) -> None:
    before = (site.accepted, inside.accepted)
    fetcher = make_fetcher(extra)
    with pytest.raises(FetchError) as caught:
        fetcher.get(url)
    assert caught.value.code == code, caught.value.message
    assert caught.value.message  # the reason a card shows
    assert (site.accepted, inside.accepted) == before


@pytest.mark.parametrize(
    ("location", "extra"), [v[1:] for v in REDIRECTS], ids=[v[0] for v in REDIRECTS]
)
def test_a_redirect_into_private_space_is_refused_at_its_hop(
    make_fetcher: Any, site: Any, inside: Any, location: str, extra: dict[str, Any]
) -> None:
    before = (site.accepted, inside.accepted)
    fetcher = make_fetcher(extra)
    with pytest.raises(FetchError) as caught:
        fetcher.get(_hop(location))
    assert caught.value.code in ("not_public", "bad_url", "url_credentials", "bad_port")
    assert caught.value.message.startswith("redirect to ")
    # The public first hop was fetched; the private one never dialled.
    assert (site.accepted, inside.accepted) == (before[0] + 1, before[1])


def test_a_resolver_that_answers_public_then_private_is_asked_once_per_hop(
    make_fetcher: Any, router: Any, site: Any, inside: Any
) -> None:
    before = inside.accepted
    table = {"rebind.example.net": [[PUBLIC], ["127.0.0.1"]]}
    # One hop: one lookup, and the connection goes to the address that was checked.
    fetcher = make_fetcher(table)
    page = fetcher.get("http://rebind.example.net/title")
    assert page.status == 200 and page.address == PUBLIC
    assert fetcher.stub.lookups == ["rebind.example.net"]
    assert router.dialled[-1] == PUBLIC
    # A redirect back to the same name looks it up again, and the private answer is refused.
    fetcher = make_fetcher({"rebind.example.net": [[PUBLIC], ["127.0.0.1"]]})
    with pytest.raises(FetchError) as caught:
        fetcher.get("http://rebind.example.net/to?u=http%3A%2F%2Frebind.example.net%2Fx")
    assert caught.value.code == "not_public"
    assert inside.accepted == before


def test_the_host_header_names_the_site_while_the_socket_goes_to_the_checked_address(
    make_fetcher: Any, site: Any
) -> None:
    fetcher = make_fetcher()
    fetcher.get(f"http://{SITE}/title")
    assert site.hosts[-1] == SITE
    fetcher.get(f"http://{SITE}:8080/title")
    assert site.hosts[-1] == f"{SITE}:8080"


def test_no_vector_ever_reached_the_private_server(inside: Any) -> None:
    # Runs after the tables above (same module-scoped servers).
    assert inside.accepted == 0
    assert len(DIRECT) + len(REDIRECTS) + 1 >= 40
