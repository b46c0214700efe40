"""Remote media, fetched for `serve --fetch-media`: off unless the operator opts in.

A caller's http(s) URL of an image makes this server a client of whatever the URL names, so the
fetch is fenced (docs/security.md): http and https only; each host name is resolved here and
every address it resolves to must be a global one (loopback, private, link-local, multicast,
reserved, unspecified and the cloud metadata addresses are refused) unless `--fetch-media-allow`
names the host as the URL writes it; the connection goes to the address that was checked (the URL's
host is sent as the Host header and, over TLS, as the SNI name the certificate is checked
against), so a name that resolves differently a moment later cannot slip past the check; a
redirect is checked the same way before it is followed, at most `FetchPolicy.redirects` times;
the whole fetch, redirects included, ends after `FetchPolicy.timeout` seconds; the body is read
up to `--max-media-bytes` and no further; the response's content type must be one the part
allows, and the bytes are then checked like inline ones (media.py). No proxy from the
environment is used: it would connect on our behalf to addresses this never checked.

The driver calls `fetch_all` from one place, between reading the arguments and validating them
(engine/driver.py): the fetched bytes become ordinary inline media before anything is built, and
no state of the call machine does I/O.
"""

from __future__ import annotations

import base64
import ipaddress
import socket
from typing import TYPE_CHECKING, Any

import anyio
import httpx2

from agent_as_model.adapters.dialects.media import Fetched
from agent_as_model.errors import CallError, caller_error
from agent_as_model.limits import FetchPolicy, Limits

if TYPE_CHECKING:
    from collections.abc import Iterable

Wanted = tuple[str, str, tuple[str, ...]]  # (url, the path the caller wrote it at, allowed types)

# Addresses that hand out cloud credentials, named so the refusal says what it guards: AWS, GCP
# and Azure's 169.254.169.254 (link-local anyway), AWS's IPv6 fd00:ec2::254 (private anyway),
# Alibaba's 100.100.100.200 (shared address space, not global).
METADATA = frozenset(ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200"))
_REDIRECTS = (301, 302, 303, 307, 308)
_CHUNK = 64 * 1024


async def fetch_all(wanted: Iterable[Wanted], limits: Limits, fetched: dict[str, Fetched]) -> None:
    """Every URL not in `fetched` yet, once, in order, into `fetched`: within one time cap for all
    of them (`--fetch-media-timeout`) and the call's media bound (`--max-media-call-bytes`, what
    `fetched` holds counted): a URL is read only up to what is left of that bound, so a call
    naming many URLs cannot make the server hold more than one call's media, nor take longer than
    one cap. The first failure is a caller error naming its path (nothing has been sent to the
    host)."""
    policy, max_bytes = limits.fetch, limits.max_media_bytes
    held = sum(_decoded_size(f.data) for f in fetched.values())
    path = ""
    try:
        with anyio.fail_after(policy.timeout):
            for url, path, allowed in wanted:
                if url in fetched:
                    continue
                left = limits.max_media_call_bytes - held
                got = await _fetch(url, path, allowed, policy, min(max_bytes, left), left < max_bytes)
                held += _decoded_size(got.data)
                fetched[url] = got
    except TimeoutError:
        raise caller_error(
            path,
            f"fetching the call's remote media took longer than {policy.timeout:g} s "
            "(serve --fetch-media-timeout)",
        ) from None


def _shown(url: str) -> str:
    """The URL as errors show it: without credentials, which no message should repeat."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, tail = rest.partition("/")
    return f"{scheme}://{authority.rpartition('@')[2]}{slash}{tail}"


def _decoded_size(data: str) -> int:
    """The number of bytes base64 `data` decodes to, without decoding it."""
    return len(data) * 3 // 4 - data.count("=", max(len(data) - 2, 0))


async def _fetch(
    url: str, path: str, allowed: tuple[str, ...], policy: FetchPolicy, max_bytes: int, call_bound: bool
) -> Fetched:
    def refused(reason: str) -> CallError:
        return caller_error(path, f"{ascii(_shown(url))} is not fetched: {reason}")

    current = url
    # No proxy from the environment and no redirects followed by the client: both would connect
    # to addresses this never checked.
    async with httpx2.AsyncClient(trust_env=False, follow_redirects=False, timeout=policy.timeout) as client:
        for _ in range(policy.redirects + 1):
            try:
                target = httpx2.URL(current)
            except (httpx2.InvalidURL, ValueError) as err:
                raise refused(f"{ascii(_shown(current))} is not a URL ({err})") from None
            if target.scheme not in ("http", "https"):
                raise refused(f"only http(s) URLs are fetched, and {ascii(_shown(current))} is not one")
            if target.userinfo:
                # Credentials would go to whatever host the URL (or a redirect) names, and into
                # logs: a caller's media URL carries none.
                raise refused("a URL with credentials (user:password@) is not fetched")
            host = target.host.lower()
            if not host:
                raise refused(f"{ascii(current)} names no host")
            port = target.port or (443 if target.scheme == "https" else 80)
            address = await _checked_address(host, port, policy, refused)
            extensions: dict[str, Any] = {"sni_hostname": host} if target.scheme == "https" else {}
            headers = {"Host": target.netloc.decode("ascii"), "Accept": ", ".join(allowed)}
            try:
                async with client.stream(
                    "GET", target.copy_with(host=address), headers=headers, extensions=extensions
                ) as response:
                    if response.status_code in _REDIRECTS:
                        location = response.headers.get("location")
                        if not location:
                            raise refused(f"HTTP {response.status_code} without a Location")
                        current = str(target.join(location))
                        continue
                    if response.status_code != 200:
                        raise refused(f"the server answered HTTP {response.status_code}")
                    return await _body(response, allowed, max_bytes, call_bound, refused)
            except httpx2.HTTPError as err:
                raise refused(f"the request failed ({type(err).__name__}: {err})") from None
    raise refused(f"more than {policy.redirects} redirects")


async def _body(
    response: Any, allowed: tuple[str, ...], max_bytes: int, call_bound: bool, refused: Any
) -> Fetched:
    # The bound met is the part's, or what the call's media have left (`call_bound`).
    if call_bound:
        bound = f"the {max_bytes} bytes left of the call's media bound (serve --max-media-call-bytes)"
    else:
        bound = f"the bound of {max_bytes} (serve --max-media-bytes)"
    mime = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if mime not in allowed:
        said = ascii(mime) if mime else "none"
        raise refused(f"its content type is {said}, not one allowed here ({', '.join(allowed)})")
    length = response.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > max_bytes:
        raise refused(f"it is {int(length)} bytes, over {bound}")
    body = bytearray()
    async for chunk in response.aiter_bytes(_CHUNK):
        body += chunk
        if len(body) > max_bytes:
            raise refused(f"it is more than {max_bytes} bytes, over {bound}")
    return Fetched(mime, base64.b64encode(bytes(body)).decode("ascii"))


async def _checked_address(host: str, port: int, policy: FetchPolicy, refused: Any) -> str:
    """The address to connect to: the first the name resolves to, once every one is found
    global, or the host is allowed as the URL writes it (a name or an address literal: an allowed
    address does not let another name that resolves to it through)."""
    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as err:
        raise refused(f"the host {ascii(host)} does not resolve ({err})") from None
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise refused(f"the host {ascii(host)} does not resolve")
    if host not in policy.allow:
        for address in addresses:
            why = why_refused(ipaddress.ip_address(address.split("%", 1)[0]))
            if why is not None:
                raise refused(
                    f"{ascii(host)} resolves to {address}, {why} (serve --fetch-media-allow names "
                    "a host to fetch from anyway)"
                )
    return addresses[0]


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def why_refused(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why an address is not fetched from, or None for a global unicast one."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return why_refused(ip.ipv4_mapped)  # ::ffff:127.0.0.1 is 127.0.0.1
        # Addresses that carry an IPv4 one reach it: 6to4 2002:7f00:1:: and NAT64 64:ff9b::7f00:1
        # are refused when the address they carry is, and judged as IPv6 as well otherwise.
        carried = ip.sixtofour or (ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in _NAT64 else None)
        if carried is not None and (why := why_refused(carried)) is not None:
            return f"{why} (carried in {ip})"
        if ip.teredo is not None:
            return "a Teredo tunnel address"
        if ip.is_site_local:
            return "a site-local address"
    if ip in METADATA:
        return "a cloud metadata address"
    for test, what in (
        (ip.is_unspecified, "the unspecified address"),
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_private, "a private address"),
        (ip.is_reserved, "a reserved address"),
    ):
        if test:
            return what
    if not ip.is_global:
        return "not a global address"
    return None
