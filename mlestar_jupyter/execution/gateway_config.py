"""Settings of the ``gateway`` kernel provider and the local→remote path mapping.

``GatewayConfig`` says where the Jupyter Kernel Gateway (or Enterprise Gateway) is, how to
authenticate, which kernel specs to start and how local paths look on the kernel's side.
``PathMap`` translates a local path (a work folder, the task's data) into the path the remote
kernel sees on the storage both sides mount.  Pure data; no network here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

ENV_URL = "MLESTAR_GATEWAY_URL"
ENV_TOKEN = "MLESTAR_GATEWAY_TOKEN"
ENV_PATH_MAP = "MLESTAR_GATEWAY_PATH_MAP"  # "/local/a=/remote/a;/local/b=/remote/b"
ENV_KERNEL_SPEC = "MLESTAR_GATEWAY_KERNEL_SPEC"
ENV_GPU_KERNEL_SPEC = "MLESTAR_GATEWAY_GPU_KERNEL_SPEC"


class GatewayConfigError(ValueError):
    """A gateway setting is malformed (the message says which and how to fix it)."""


def _norm(path: str) -> str:
    text = str(path)
    if not text.startswith("/"):
        raise GatewayConfigError(f"path_map entry {path!r} is not absolute; use absolute paths")
    return str(PurePosixPath(os.path.normpath(text)))


@dataclass(frozen=True)
class PathMap:
    """Local→remote prefix mapping; the longest matching local prefix wins, unmapped paths
    are the same on both sides."""

    entries: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, mapping: Mapping[str, str] | PathMap | None) -> PathMap:
        """Build from ``{"/local/prefix": "/remote/prefix"}`` (or pass a ``PathMap`` through)."""
        if isinstance(mapping, PathMap):
            return mapping
        pairs = [(_norm(k), _norm(v)) for k, v in (mapping or {}).items()]
        return cls(tuple(sorted(pairs, key=lambda kv: len(kv[0]), reverse=True)))

    @classmethod
    def parse(cls, text: str) -> PathMap:
        """Parse ``"/local/a=/remote/a;/local/b=/remote/b"`` (the environment-variable form)."""
        mapping: dict[str, str] = {}
        for part in filter(None, (p.strip() for p in text.split(";"))):
            local, sep, remote = part.partition("=")
            if not sep:
                raise GatewayConfigError(
                    f"{ENV_PATH_MAP} entry {part!r} has no '='; write /local/prefix=/remote/prefix"
                )
            mapping[local.strip()] = remote.strip()
        return cls.of(mapping)

    def _match(self, path: str) -> tuple[str, str] | None:
        for local, remote in self.entries:
            if path == local or path.startswith(local.rstrip("/") + "/"):
                return local, remote
        return None

    def to_remote(self, path: str | os.PathLike[str]) -> str:
        """The path the remote kernel sees for the local absolute ``path``."""
        p = _norm(os.fspath(path))
        hit = self._match(p)
        if hit is None:
            return p
        local, remote = hit
        rest = p[len(local) :].lstrip("/")
        return str(PurePosixPath(remote) / rest) if rest else remote

    def same_area(self, a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
        """Whether ``a`` and ``b`` fall under the same mapping entry (or both under none), so a
        relative path between them means the same thing on both sides."""
        return self._match(_norm(os.fspath(a))) == self._match(_norm(os.fspath(b)))


@dataclass(frozen=True)
class GatewayConfig:
    """Where the gateway is and how candidates run there.

    ``url``/``token``: the gateway and its auth token (sent as ``Authorization: token …``).
    ``path_map``: local→remote prefixes of the shared storage.  ``kernel_spec`` starts normal
    candidates; ``gpu_kernel_spec`` (when set) starts candidates that hold a GPU slot.
    ``max_kernels``: candidate kernels running at once on this gateway (None: the executor's
    ``max_parallel``).  ``pool_size``: warm remote kernels kept ready.  ``threads_per_kernel``:
    thread caps set in the kernel before the candidate runs (None: leave the remote default).
    ``kernel_env``: sent with the start request (gateways pass ``KERNEL_*`` names on, e.g.
    ``KERNEL_USERNAME`` for Enterprise Gateway).  Timeouts are in seconds.
    """

    url: str
    token: str = field(default="", repr=False)  # never in logs or reprs
    path_map: PathMap = field(default_factory=PathMap)
    kernel_spec: str = "python3"
    gpu_kernel_spec: str | None = None
    max_kernels: int | None = None
    pool_size: int = 0
    threads_per_kernel: int | None = None
    kernel_env: Mapping[str, str] = field(default_factory=dict)
    connect_timeout: float = 5.0
    request_timeout: float = 60.0
    startup_timeout: float = 60.0
    validate_cert: bool = True

    def __post_init__(self) -> None:
        url = str(self.url or "").strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise GatewayConfigError(
                f"gateway url {self.url!r} must start with http:// or https:// "
                f"(set gateway_url= or {ENV_URL})"
            )
        object.__setattr__(self, "url", url)
        object.__setattr__(self, "path_map", PathMap.of(self.path_map))  # accept a plain dict
        if self.max_kernels is not None and self.max_kernels < 1:
            raise GatewayConfigError("max_kernels must be at least 1 (or None)")

    @property
    def ws_url(self) -> str:
        """The websocket base URL (``ws://`` or ``wss://``)."""
        return "ws" + self.url[len("http") :]

    def redacted(self) -> str:
        """A description for logs that never shows the token."""
        return f"gateway {self.url} (token {'set' if self.token else 'none'})"

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, **overrides: object
    ) -> GatewayConfig | None:
        """A config from ``MLESTAR_GATEWAY_URL``/``_TOKEN`` (and ``_PATH_MAP``, ``_KERNEL_SPEC``,
        ``_GPU_KERNEL_SPEC``), or None when no URL is set here or in ``overrides``.  ``overrides`` win over the environment."""
        env = os.environ if environ is None else environ
        url = str(overrides.get("url") or env.get(ENV_URL, "")).strip()
        if not url:
            return None
        kw: dict[str, object] = {"url": url, "token": env.get(ENV_TOKEN, "")}
        if env.get(ENV_PATH_MAP):
            kw["path_map"] = PathMap.parse(env[ENV_PATH_MAP])
        if env.get(ENV_KERNEL_SPEC):
            kw["kernel_spec"] = env[ENV_KERNEL_SPEC]
        if env.get(ENV_GPU_KERNEL_SPEC):
            kw["gpu_kernel_spec"] = env[ENV_GPU_KERNEL_SPEC]
        kw.update(overrides)
        return cls(**kw)  # type: ignore[arg-type]
