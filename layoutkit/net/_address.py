"""Which addresses and URLs may be fetched: public internet only.

Two questions, asked in this order before any socket opens:

- :func:`parse_target` reads a URL strictly (http or https, no credentials, an
  allowed port, a host that is a plain DNS name or an IP literal) and
  recognises every spelling of an IPv4 address a URL parser or a resolver
  would accept (``2130706433``, ``0177.0.0.1``, ``0x7f.1``, ``127.1``), so a
  number is judged as the address it means, never as a name;
- :func:`refusal` says why an IP address is not a public unicast internet
  address, after unwrapping the IPv6 forms that carry an IPv4 address inside
  (mapped, compatible, 6to4, Teredo, NAT64).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Collection
from typing import Literal

import attrs
import idna

from layoutkit.net._errors import FetchError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Ports a link may name. Web pages live on the default ports and on the two
#: common alternates; any other port is refused so the fetcher cannot be used
#: to knock on mail, database or admin services of public hosts.
ALLOWED_PORTS: frozenset[int] = frozenset({80, 443, 8080, 8443})
DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_URL = 2048

_NET4 = ipaddress.IPv4Network
_NET6 = ipaddress.IPv6Network

#: IPv4 ranges that are never fetched, with the reason a card shows (IANA
#: special-purpose registry). Checked before Python's own ``is_global`` so the
#: reason names the range and the answer does not depend on the Python version.
_V4_REFUSED: tuple[tuple[ipaddress.IPv4Network, str], ...] = (
    (_NET4("0.0.0.0/8"), "an unspecified or 'this network' address"),
    (_NET4("10.0.0.0/8"), "a private address"),
    (_NET4("100.64.0.0/10"), "a shared (carrier-grade NAT) address"),
    (_NET4("127.0.0.0/8"), "a loopback address"),
    (_NET4("169.254.0.0/16"), "a link-local address"),
    (_NET4("172.16.0.0/12"), "a private address"),
    (_NET4("192.0.0.0/24"), "an IETF protocol assignment"),
    (_NET4("192.0.2.0/24"), "a documentation address"),
    (_NET4("192.88.99.0/24"), "a 6to4 relay anycast address"),
    (_NET4("192.168.0.0/16"), "a private address"),
    (_NET4("198.18.0.0/15"), "a benchmarking address"),
    (_NET4("198.51.100.0/24"), "a documentation address"),
    (_NET4("203.0.113.0/24"), "a documentation address"),
    (_NET4("224.0.0.0/4"), "a multicast address"),
    (_NET4("240.0.0.0/4"), "a reserved address"),
)
#: Only global unicast (2000::/3) is fetched over IPv6; inside it these are refused.
_V6_GLOBAL = _NET6("2000::/3")
_V6_REFUSED: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_NET6("2001::/23"), "an IETF protocol assignment"),
    (_NET6("2001:db8::/32"), "a documentation address"),
    (_NET6("3fff::/20"), "a documentation address"),
)
_V6_OUTSIDE: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_NET6("::1/128"), "a loopback address"),
    (_NET6("::/128"), "an unspecified address"),
    (_NET6("64:ff9b:1::/48"), "a local-use NAT64 address"),
    (_NET6("100::/64"), "a discard-only address"),
    (_NET6("fc00::/7"), "a unique-local (private) address"),
    (_NET6("fe80::/10"), "a link-local address"),
    (_NET6("fec0::/10"), "a site-local address"),
    (_NET6("ff00::/8"), "a multicast address"),
)
_MAPPED = _NET6("::ffff:0:0/96")
_TRANSLATED = _NET6("::ffff:0:0:0/96")
_COMPATIBLE = _NET6("::/96")
_SIX_TO_FOUR = _NET6("2002::/16")
_TEREDO = _NET6("2001::/32")
_NAT64 = _NET6("64:ff9b::/96")

#: Names that never lead to the public internet, whatever a resolver answers.
_LOCAL_SUFFIXES = (
    "localhost",
    "localdomain",
    "local",
    "internal",
    "intranet",
    "lan",
    "home",
    "corp",
    "home.arpa",
    "arpa",
    "test",
    "invalid",
    "example",
    "onion",
)
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_IPV4_PART = re.compile(r"^(?:0[xX][0-9a-fA-F]*|[0-9]+)$")
_FORBIDDEN_CHARS = re.compile(r"[\x00-\x20\x7f\\]")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


def _embedded_v4(ip: ipaddress.IPv6Address) -> list[tuple[ipaddress.IPv4Address, str]]:
    """The IPv4 addresses an IPv6 address carries, with the form that carries them."""
    as_int = int(ip)
    if ip in _MAPPED:
        return [(ipaddress.IPv4Address(as_int & 0xFFFFFFFF), "IPv4-mapped")]
    if ip in _TRANSLATED:
        return [(ipaddress.IPv4Address(as_int & 0xFFFFFFFF), "IPv4-translated")]
    if ip in _COMPATIBLE:
        return [(ipaddress.IPv4Address(as_int & 0xFFFFFFFF), "IPv4-compatible")]
    if ip in _SIX_TO_FOUR:
        return [(ipaddress.IPv4Address((as_int >> 80) & 0xFFFFFFFF), "6to4")]
    if ip in _TEREDO:
        server, client = ip.teredo or (None, None)
        assert server is not None and client is not None
        return [(server, "Teredo server"), (client, "Teredo client")]
    if ip in _NAT64:
        return [(ipaddress.IPv4Address(as_int & 0xFFFFFFFF), "NAT64")]
    return []


def _listed(
    ip: IPAddress, table: tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...]
) -> str | None:
    """The reason of the first range in ``table`` holding ``ip``, or None."""
    for net, why in table:
        if ip in net:
            return why
    return None


def _v4_refusal(ip: ipaddress.IPv4Address) -> str | None:
    why = _listed(ip, _V4_REFUSED)
    if why is None and not ip.is_global:
        return "not a public address"
    return why


def refusal(ip: IPAddress) -> str | None:
    """Why ``ip`` may not be fetched (``"a loopback address"``...), or None when it is public.

    IPv6 forms that embed an IPv4 address are judged by every address they embed
    as well as by their own range.
    """
    if isinstance(ip, ipaddress.IPv4Address):
        return _v4_refusal(ip)
    if ip.scope_id:
        return "an address with a zone id"
    if ip == ipaddress.IPv6Address("::1"):
        return "a loopback address"
    if ip == ipaddress.IPv6Address("::"):
        return "an unspecified address"
    embedded = _embedded_v4(ip)
    if embedded:
        return _wrapper_refusal(ip, embedded)
    return _v6_refusal(ip)


def _wrapper_refusal(
    ip: ipaddress.IPv6Address, embedded: list[tuple[ipaddress.IPv4Address, str]]
) -> str | None:
    """Why an IPv6 address that carries IPv4 addresses is refused, or None."""
    for v4, form in embedded:
        why = _v4_refusal(v4)
        if why is not None:
            return f"{why} inside an IPv6 address of the {form} form ({v4})"
    if ip in _TEREDO:
        return "a Teredo tunnel address"
    if ip in _TRANSLATED:
        return "an IPv4-translated address"
    # A wrapper around a public IPv4 address (6to4, NAT64, the mapped and
    # compatible forms) reaches that address; mapped forms are dialled as IPv4.
    return None


def _v6_refusal(ip: ipaddress.IPv6Address) -> str | None:
    """Why a plain IPv6 address (no IPv4 inside) is refused, or None."""
    why = _listed(ip, _V6_OUTSIDE)
    if why is not None:
        return why
    if ip not in _V6_GLOBAL:
        return "not a global unicast address"
    why = _listed(ip, _V6_REFUSED)
    if why is None and not ip.is_global:
        return "not a public address"
    return why


def dial_address(ip: IPAddress) -> IPAddress:
    """The address a socket connects to: the IPv4 inside a mapped form, else ``ip``."""
    if isinstance(ip, ipaddress.IPv6Address) and (ip in _MAPPED or ip in _COMPATIBLE):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def _ipv4_number(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a host spelled as numbers means (WHATWG URL rules), or None.

    A host whose last label is a number (decimal, ``0``-octal or ``0x``-hex) is an
    IPv4 address in every browser and in ``inet_aton``: ``127.1``, ``0x7f.1``,
    ``2130706433`` and ``0177.0.0.1`` all mean 127.0.0.1. Raises :class:`FetchError`
    for a numeric host that is no valid address (a resolver might still answer it).
    """
    parts = host.split(".")
    if not _IPV4_PART.match(parts[-1]):
        return None
    if len(parts) > 4 or not all(_IPV4_PART.match(p) for p in parts):
        raise FetchError("bad_host", f"{host!r} looks like an IPv4 address but is not one")
    numbers = []
    for part in parts:
        if part[:2].lower() == "0x":
            numbers.append(int(part[2:] or "0", 16))
        elif len(part) > 1 and part.startswith("0"):
            if any(c in "89" for c in part):
                raise FetchError("bad_host", f"{host!r} has an octal part with 8 or 9")
            numbers.append(int(part, 8))
        else:
            numbers.append(int(part))
    last = numbers.pop()
    if any(n > 255 for n in numbers) or last >= 256 ** (4 - len(numbers)):
        raise FetchError("bad_host", f"{host!r} is out of the IPv4 range")
    value = last
    for i, n in enumerate(numbers):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


@attrs.frozen(slots=True)
class Target:
    """A checked URL: what to ask for (``url``), of which host, on which port.

    ``host`` is the ASCII (IDNA) name without a trailing dot, or the IP literal
    when ``ip`` is set; ``url`` is rebuilt from the checked parts, so the HTTP
    client never sees a spelling this module did not read.
    """

    scheme: Literal["http", "https"]
    host: str
    port: int
    path: str
    ip: IPAddress | None = None

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.authority}{self.path}"

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if isinstance(self.ip, ipaddress.IPv6Address) else self.host
        if self.port == DEFAULT_PORTS[self.scheme]:
            return host
        return f"{host}:{self.port}"


def _host_name(raw: str) -> str:
    """An ASCII, lower-case host name for ``raw``: IDNA-encoded, one trailing dot dropped."""
    host = raw[:-1] if raw.endswith(".") else raw
    if not host:
        raise FetchError("bad_host", "the URL has no host")
    if not host.isascii():
        try:
            # UTS 46 maps what a browser maps (full-width digits and dots among
            # them) before encoding, so the number check below sees the same host.
            host = idna.encode(host, uts46=True).decode("ascii")
        except idna.IDNAError as exc:
            raise FetchError("bad_host", f"{raw!r} is not a valid host name: {exc}") from exc
    return host.lower()


def _check_name(host: str) -> None:
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise FetchError("bad_host", f"{host!r} is not a valid host name")
    for suffix in _LOCAL_SUFFIXES:
        if host == suffix or host.endswith("." + suffix):
            raise FetchError("not_public", f"{host!r} is a local or reserved name (.{suffix})")
    if len(labels) < 2:
        # A single label is completed by the resolver's search domains: an
        # intranet name, never a public site.
        raise FetchError("not_public", f"{host!r} is a single-label (local) name")


def parse_target(url: str) -> Target:
    """Read ``url`` strictly; raise :class:`FetchError` for anything that is not a
    public-looking http(s) URL.

    Codes: ``bad_url`` (not http or https, malformed, too long, control
    characters or backslashes), ``url_credentials`` (user info before the host),
    ``bad_port`` (a port other than 80, 443, 8080 or 8443), ``bad_host`` (not a
    DNS name or IP literal, IPv6 zone ids), ``not_public`` (a local name, or an
    IP literal that is not public).
    """
    scheme, rest = _scheme_and_rest(url)
    authority, path = _authority_and_path(rest)
    host, ip, port_text = _host_and_port_text(authority)
    port = _port(port_text, scheme)
    if ip is not None:
        why = refusal(ip)
        if why is not None:
            raise FetchError("not_public", f"{host} is {why}", address=str(ip))
    return Target(scheme, host, port, path, ip)  # type: ignore[arg-type]


def allowed_target(url: str, allow: Collection[str]) -> Target | None:
    """``url`` read as strictly as :func:`parse_target` reads it, when its host is one a
    deployment allowed by name (``allow``: lower-case host names or IP literals);
    None for any other host. Such a host is the operator's explicit exception to the
    address rules, so it may be a local name or address and use any port."""
    if not allow:
        return None
    scheme, rest = _scheme_and_rest(url)
    authority, path = _authority_and_path(rest)
    ip: IPAddress | None
    if authority.startswith("["):
        host, ip, port_text = _ipv6_literal(authority)
    else:
        host_text, _, port_text = authority.partition(":")
        host = _host_name(host_text)
        ip = _ipv4_number(host)
        host = host if ip is None else str(ip)
    if host not in allow:
        return None
    if port_text == "":
        port = DEFAULT_PORTS[scheme]
    elif port_text.isdigit() and port_text.isascii() and 0 < int(port_text) < 65536:
        port = int(port_text)
    else:
        raise FetchError("bad_port", f"{port_text!r} is not a port number")
    return Target(scheme, host, port, path, ip)  # type: ignore[arg-type]


def _scheme_and_rest(url: str) -> tuple[str, str]:
    """The lower-case scheme (http or https) and what follows ``scheme://``."""
    if not isinstance(url, str) or not url:
        raise FetchError("bad_url", "the URL is empty")
    if len(url) > MAX_URL:
        raise FetchError("bad_url", f"the URL is longer than {MAX_URL} characters")
    if _FORBIDDEN_CHARS.search(url):
        raise FetchError("bad_url", "the URL holds spaces, control characters or backslashes")
    match = _SCHEME.match(url)
    scheme = match.group(1).lower() if match else ""
    if scheme not in DEFAULT_PORTS:
        raise FetchError("bad_url", "only http and https URLs are fetched")
    rest = url[match.end() :] if match else url
    if not rest.startswith("//"):
        raise FetchError("bad_url", "the URL has no host")
    return scheme, rest[2:]


def _authority_and_path(rest: str) -> tuple[str, str]:
    """The authority and the path with its query (no fragment, always from ``/``)."""
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, path = rest[:cut], rest[cut:]
    path = path.split("#", 1)[0]
    if not path.startswith("/"):
        path = "/" + path
    if "@" in authority:
        raise FetchError(
            "url_credentials", "URLs with a user name or password before the host are not fetched"
        )
    if "%" in authority:
        raise FetchError("bad_host", "percent-escapes and zone ids in the host are not allowed")
    return authority, path


def _host_and_port_text(authority: str) -> tuple[str, IPAddress | None, str]:
    """The checked host, its IP when it is an address, and the port as written."""
    if authority.startswith("["):
        return _ipv6_literal(authority)
    host_text, _, port_text = authority.partition(":")
    host = _host_name(host_text)
    ip = _ipv4_number(host)
    if ip is not None:
        return str(ip), ip, port_text
    _check_name(host)
    return host, None, port_text


def _ipv6_literal(authority: str) -> tuple[str, IPAddress, str]:
    end = authority.find("]")
    if end < 0:
        raise FetchError("bad_host", "an IPv6 literal without its closing bracket")
    literal, port_text = authority[1:end], authority[end + 1 :]
    try:
        ip = ipaddress.IPv6Address(literal)
    except ValueError as exc:
        raise FetchError("bad_host", f"[{literal}] is not an IPv6 address") from exc
    if port_text and not port_text.startswith(":"):
        raise FetchError("bad_host", "text after an IPv6 literal")
    return str(ip), ip, port_text[1:] if port_text else ""


def _port(port_text: str, scheme: str) -> int:
    if port_text == "":
        port = DEFAULT_PORTS[scheme]
    elif port_text.isdigit() and port_text.isascii() and len(port_text) <= 5:
        port = int(port_text)
    else:
        raise FetchError("bad_port", f"{port_text!r} is not a port number")
    if port not in ALLOWED_PORTS:
        raise FetchError(
            "bad_port",
            f"port {port} is not fetched (only {', '.join(map(str, sorted(ALLOWED_PORTS)))})",
        )
    return port
