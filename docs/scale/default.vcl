# The HTTP cache of the `scale` topology (docker-compose.yml, profile `scale`; the tests start the
# same file with test/servers/topology.ts, which writes its own backend in). It keeps what the
# service says: a variant per `Vary` (Accept for the 303s of /resource, Accept-Encoding for
# every document: Varnish stores the gzip variant and unzips it for a client that did not ask for
# gzip), nothing marked `no-store` or `private` (errors, /readyz, the staff endpoint), nothing with
# credentials. A reload reaches it by revalidation: each document is fresh for a second, then asked
# for again with its ETag; a 304 keeps the stored copy (a replica switched to a version where the
# record did not change answers 304), a 200 replaces it. So no stale version is served a second
# after every replica has switched, and no purge has to find every cache. Mementos marked immutable
# (/memento/…, docs/history.md) never change: they are kept for their year, as they say. A request
# with Accept-Datetime is passed to the replicas rather than stored as one more variant per date.
vcl 4.1;

backend balancer {
  .host = "balancer";
  .port = "8080";
  .first_byte_timeout = 60s;
}

sub vcl_recv {
  if (req.method != "GET" && req.method != "HEAD") {
    return (pass);
  }
  if (req.http.Authorization || req.url ~ "^/(sparql|readyz|healthz|metrics)") {
    return (pass);
  }
  if (req.http.Accept-Datetime) {
    return (pass);
  }
  return (hash);
}

sub vcl_backend_response {
  if (beresp.http.Cache-Control ~ "(no-store|private)") {
    set beresp.uncacheable = true;
    set beresp.ttl = 120s;
    return (deliver);
  }
  if (beresp.status == 200 && bereq.url ~ "^/memento/" && beresp.http.Cache-Control ~ "immutable") {
    set beresp.ttl = 365d;
    return (deliver);
  }
  # A TimeGate's 302 leads to the latest memento: it changes with the version, as documents do.
  if (beresp.status == 200 || beresp.status == 301 || beresp.status == 302 || beresp.status == 303 || beresp.status == 410) {
    set beresp.ttl = 1s;
    set beresp.grace = 0s;
    set beresp.keep = 1h;
  }
}

sub vcl_deliver {
  if (obj.hits > 0) {
    set resp.http.X-Cache = "hit";
  } else {
    set resp.http.X-Cache = "miss";
  }
}
