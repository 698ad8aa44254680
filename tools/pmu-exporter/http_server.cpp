// pmu-exporter -- the HTTP/1.1 server: one poll(2) loop on a thread of its own, a bounded number of
// connections, a deadline on each, and an accept(2) that rests when descriptors run out.
#include "http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <list>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "pmukit/util/clock.h"
#include "pmukit/util/confined_root.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::exporter {

namespace {

constexpr std::uint64_t kLogEveryMs = 10'000;
constexpr std::uint64_t kFirstRestMs = 10, kLongestRestMs = 1'000;
constexpr int kBacklog = 128;
constexpr int kAcceptBurst = 64;  // connections taken per wake-up before the others are served

std::uint64_t now_ms() {
  return monotonic_ns() / 1'000'000;
}

// Lines on stderr that a client can provoke: at most one per kind every 10 s, with the count of
// those not printed in between.
class RateLimitedLog {
 public:
  enum Kind { AcceptFailed, AtCapacity, TimedOut, Kinds };
  void note(Kind kind, std::uint64_t now, const std::string& text) {
    auto& k = kinds_[kind];
    if (k.printed && now - k.last < kLogEveryMs) {
      ++k.suppressed;
      return;
    }
    fmt::print(stderr, "pmu-exporter: {}{}\n", text,
               k.suppressed ? fmt::format(" (and {} more like it since the last such line)", k.suppressed) : "");
    std::fflush(stderr);
    k = {true, now, 0};
  }

 private:
  struct State {
    bool printed = false;
    std::uint64_t last = 0, suppressed = 0;
  };
  std::array<State, Kinds> kinds_{};
};

struct Conn {
  UniqueFd fd;
  std::string peer;
  std::string in, out;
  std::size_t sent = 0;
  std::uint64_t deadline = 0;
  std::uint64_t idle_since = 0;
  bool close_after = false;
  bool closed = false;
  enum class Phase { Idle, Receiving, Sending } phase = Phase::Idle;
};

std::string peer_text(const sockaddr_storage& ss) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (ss.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(ss).sin_addr, host, sizeof host);
  else if (ss.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(ss).sin6_addr, host, sizeof host);
  return host;
}

// What a request head says, or the status that refuses it.
struct Parsed {
  HttpRequest request;
  bool keep_alive = true;
  bool http10 = false;
  int refuse = 0;  // 400, 413, 501...: answered, then the connection closes
};

Parsed parse_head(std::string_view head) {
  Parsed p;
  auto lines = split(head, '\n');
  auto first = split(trim(lines.empty() ? "" : lines[0]), ' ');
  if (first.size() != 3 || !first[1].starts_with('/') || !first[2].starts_with("HTTP/1.")) {
    p.refuse = 400, p.keep_alive = false;
    return p;
  }
  p.request.method = std::string(first[0]);
  p.request.path = std::string(first[1].substr(0, first[1].find('?')));
  p.http10 = first[2] == "HTTP/1.0";
  p.keep_alive = !p.http10;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto line = trim(lines[i]);
    auto colon = line.find(':');
    if (line.empty()) continue;
    if (colon == std::string_view::npos || colon == 0) return p.refuse = 400, p.keep_alive = false, p;
    auto name = to_lower(trim(line.substr(0, colon)));
    auto value = trim(line.substr(colon + 1));
    if (name == "accept") p.request.accept = std::string(value);
    if (name == "connection" && iequals(value, "close")) p.keep_alive = false;
    if (name == "connection" && iequals(value, "keep-alive")) p.keep_alive = true;
    // A scrape has no body; one announced cannot be skipped safely: refused, then closed.
    if ((name == "content-length" && value != "0") || name == "transfer-encoding")
      return p.refuse = 413, p.keep_alive = false, p;
  }
  if (p.request.method != "GET" && p.request.method != "HEAD") p.refuse = 501;
  return p;
}

// The end of the request head (past its blank line), or npos while it is incomplete.
std::size_t head_end(const std::string& in) {
  auto crlf = in.find("\r\n\r\n");
  auto lf = in.find("\n\n");
  if (crlf == std::string::npos && lf == std::string::npos) return std::string::npos;
  return crlf < lf ? crlf + 4 : lf + 2;
}

}  // namespace

const char* reason_phrase(int status) {
  switch (status) {
  case 200:
    return "OK";
  case 400:
    return "Bad Request";
  case 404:
    return "Not Found";
  case 413:
    return "Content Too Large";
  case 431:
    return "Request Header Fields Too Large";
  case 500:
    return "Internal Server Error";
  case 501:
    return "Not Implemented";
  case 503:
    return "Service Unavailable";
  default:
    return "Unknown";
  }
}

struct HttpService::Loop {
  HttpLimits limits;
  Handler handler;
  UniqueFd listen;
  UniqueFd wake{::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
  std::list<Conn> conns;
  std::uint64_t rest_until = 0, rest_ms = 0;  // accept(2) back-off
  RateLimitedLog log;
  HttpStats stats;

  void run();
  bool accepting(std::uint64_t now) const;
  void accept_new(std::uint64_t now);
  bool evict_idle();
  void expire(std::uint64_t now);
  int poll_timeout(std::uint64_t now) const;
  void receive(Conn& c, std::uint64_t now);
  void serve(Conn& c, std::uint64_t now);
  void respond(Conn& c, const Parsed& p, std::uint64_t now);
  bool flush(Conn& c);
  void go_idle(Conn& c, std::uint64_t now) {
    c.phase = Conn::Phase::Idle, c.idle_since = now, c.deadline = now + limits.idle_timeout_ms;
  }
};

bool HttpService::Loop::accepting(std::uint64_t now) const {
  if (now < rest_until) return false;
  if (conns.size() < limits.max_connections) return true;
  return std::any_of(conns.begin(), conns.end(), [](const Conn& c) { return c.phase == Conn::Phase::Idle; });
}

// At the cap, the connection idle longest (no request begun) makes room; false when none is idle.
bool HttpService::Loop::evict_idle() {
  auto oldest = conns.end();
  for (auto it = conns.begin(); it != conns.end(); ++it)
    if (it->phase == Conn::Phase::Idle && !it->closed && (oldest == conns.end() || it->idle_since < oldest->idle_since))
      oldest = it;
  if (oldest == conns.end()) return false;
  conns.erase(oldest);
  ++stats.evicted;
  return true;
}

void HttpService::Loop::accept_new(std::uint64_t now) {
  for (int i = 0; i < kAcceptBurst; ++i) {
    if (conns.size() >= limits.max_connections && !evict_idle()) {
      log.note(RateLimitedLog::AtCapacity, now,
               fmt::format("{} connections open, the cap: new ones wait until one ends", conns.size()));
      return;
    }
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int fd = ::accept4(listen.get(), reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      if (err == EAGAIN || err == EWOULDBLOCK) return;
      if (err == EINTR || err == ECONNABORTED || err == EPROTO) continue;
      // Out of descriptors or memory (or worse): polling again at once would spin. Rest.
      ++stats.accept_failures;
      rest_ms = std::min(rest_ms ? rest_ms * 2 : kFirstRestMs, kLongestRestMs);
      rest_until = now + rest_ms;
      log.note(RateLimitedLog::AcceptFailed, now,
               fmt::format("accept: {}: new connections wait {} ms", errno_text(err), rest_ms));
      return;
    }
    rest_ms = 0;
    ++stats.accepted;
    auto& c = conns.emplace_back();
    c.fd = UniqueFd(fd);
    c.peer = peer_text(ss);
    go_idle(c, now);
  }
}

void HttpService::Loop::expire(std::uint64_t now) {
  for (auto& c : conns) {
    if (c.closed || now < c.deadline) continue;
    const char* what = c.phase == Conn::Phase::Idle        ? "no request begun within the idle timeout"
                       : c.phase == Conn::Phase::Receiving ? "its request not complete within the request timeout"
                                                           : "its response not taken within the request timeout";
    log.note(RateLimitedLog::TimedOut, now, fmt::format("closed a connection from {}: {}", c.peer, what));
    c.closed = true;
    ++stats.timed_out;
  }
}

int HttpService::Loop::poll_timeout(std::uint64_t now) const {
  std::uint64_t next = now < rest_until ? rest_until : ~0ull;
  for (const auto& c : conns) next = std::min(next, c.deadline);
  if (next == ~0ull) return -1;
  return static_cast<int>(std::min<std::uint64_t>(next > now ? next - now : 0, 60'000));
}

void HttpService::Loop::receive(Conn& c, std::uint64_t now) {
  char buf[4096];
  ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    c.closed = true;  // the client went away (or the connection failed)
    return;
  }
  if (c.phase == Conn::Phase::Idle) c.phase = Conn::Phase::Receiving, c.deadline = now + limits.request_timeout_ms;
  c.in.append(buf, static_cast<std::size_t>(n));
  serve(c, now);
}

// Answers the complete requests in c.in, in order, while their answers go out at once.
void HttpService::Loop::serve(Conn& c, std::uint64_t now) {
  while (!c.closed && c.phase != Conn::Phase::Sending) {
    if (c.close_after) {
      c.closed = true;
      return;
    }
    if (c.in.empty()) return go_idle(c, now);
    if (c.phase == Conn::Phase::Idle) c.phase = Conn::Phase::Receiving, c.deadline = now + limits.request_timeout_ms;
    const auto end = head_end(c.in);
    if (end == std::string::npos && c.in.size() <= limits.max_header_bytes) return;
    Parsed p;
    if (end == std::string::npos || end > limits.max_header_bytes) {
      p.refuse = 431, p.keep_alive = false;
    } else {
      p = parse_head(std::string_view(c.in).substr(0, end));
      c.in.erase(0, end);
    }
    respond(c, p, now);
    if (!flush(c)) c.closed = true;
  }
}

void HttpService::Loop::respond(Conn& c, const Parsed& p, std::uint64_t now) {
  HttpResponse r;
  if (p.refuse) {
    r.status = p.refuse;
    r.body = fmt::format("{}\n", reason_phrase(p.refuse));
  } else {
    try {
      r = handler(p.request);
    } catch (const std::exception& e) {
      r = HttpResponse{500, "text/plain; charset=utf-8", fmt::format("{}\n", e.what())};
    }
  }
  c.close_after = !p.keep_alive || p.refuse == 400 || p.refuse == 413 || p.refuse == 431;
  c.out = fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}\r\n", r.status,
                      reason_phrase(r.status), r.content_type, r.body.size(),
                      c.close_after ? "Connection: close\r\n"
                      : p.http10    ? "Connection: keep-alive\r\n"
                                    : "");
  if (p.request.method != "HEAD") c.out += r.body;
  c.sent = 0;
  c.phase = Conn::Phase::Sending;
  c.deadline = now + limits.request_timeout_ms;
}

// Sends what the socket takes now; false when the connection failed. Back to Receiving when all
// is sent (serve() then goes on with what the client sent meanwhile).
bool HttpService::Loop::flush(Conn& c) {
  while (c.sent < c.out.size()) {
    ssize_t n = ::send(c.fd.get(), c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n <= 0) return false;
    c.sent += static_cast<std::size_t>(n);
  }
  c.out.clear();
  c.sent = 0;
  c.phase = Conn::Phase::Receiving;
  return true;
}

void HttpService::Loop::run() {
  std::vector<pollfd> fds;
  std::vector<Conn*> polled;
  for (;;) {
    std::uint64_t now = now_ms();
    expire(now);
    conns.remove_if([](const Conn& c) { return c.closed; });
    stats.open = conns.size();
    fds.assign({pollfd{wake.get(), POLLIN, 0}});
    const bool listening = accepting(now);
    if (listening) fds.push_back({listen.get(), POLLIN, 0});
    polled.clear();
    for (auto& c : conns) {
      fds.push_back({c.fd.get(), static_cast<short>(c.phase == Conn::Phase::Sending ? POLLOUT : POLLIN), 0});
      polled.push_back(&c);
    }
    if (::poll(fds.data(), fds.size(), poll_timeout(now)) < 0 && errno != EINTR) return;
    if (fds[0].revents) return;  // stop()
    now = now_ms();
    const std::size_t first = listening ? 2 : 1;
    for (std::size_t i = 0; i < polled.size(); ++i) {
      Conn& c = *polled[i];
      const short ev = fds[first + i].revents;
      if (!ev || c.closed) continue;
      if (c.phase == Conn::Phase::Sending) {
        if (!flush(c))
          c.closed = true;
        else if (c.phase != Conn::Phase::Sending)
          serve(c, now);
      } else {
        receive(c, now);
      }
    }
    if (listening && fds[1].revents) accept_new(now);
  }
}

HttpService::HttpService(std::string host, int port, HttpLimits limits, Handler handler)
    : host_(std::move(host)), port_(port), loop_(std::make_unique<Loop>()) {
  loop_->limits = limits;
  loop_->handler = std::move(handler);
  if (!loop_->wake) throw Error("HTTP server: cannot create its stop event");
}

HttpService::~HttpService() {
  stop();
}

namespace {

// The first address of host:port that binds and listens (getaddrinfo's order, as a name may have
// several); the error of the last one tried otherwise.
UniqueFd bind_listen(const std::string& host, int port, int& bound_port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &res); rc != 0)
    throw Error(fmt::format("listen {}:{}: cannot bind ({})", host, port, ::gai_strerror(rc)));
  int err = EADDRNOTAVAIL;
  UniqueFd fd;
  for (addrinfo* a = res; a && !fd; a = a->ai_next) {
    UniqueFd s(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    const int one = 1;
    if (s && ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
        ::bind(s.get(), a->ai_addr, a->ai_addrlen) == 0 && ::listen(s.get(), kBacklog) == 0)
      fd = std::move(s);
    else
      err = errno;
  }
  ::freeaddrinfo(res);
  if (!fd) throw Error(fmt::format("listen {}:{}: cannot bind ({})", host, port, errno_text(err)));
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  bound_port = addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<const sockaddr_in6&>(addr).sin6_port)
                                          : ntohs(reinterpret_cast<const sockaddr_in&>(addr).sin_port);
  return fd;
}

}  // namespace

const HttpStats& HttpService::stats() const {
  return loop_->stats;
}

void HttpService::start() {
  loop_->listen = bind_listen(host_, port_, port_);
  // A stop() before the thread enters the loop still ends it: the eventfd stays readable.
  thread_ = std::thread([loop = loop_.get()] { loop->run(); });
}

void HttpService::stop() {
  if (!thread_.joinable()) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(loop_->wake.get(), &one, sizeof one);
  thread_.join();
  loop_->conns.clear();
}

}  // namespace pmukit::exporter
