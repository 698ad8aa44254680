// pmu-exporter -- connection limits around evhttp (connection_guard.h says which and why).
#include "connection_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <mutex>
#include <vector>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <fmt/format.h>

#include "pmukit/util/error.h"

namespace pmukit::exporter {

using Clock = std::chrono::steady_clock;

void RateLimitedLog::say(const std::string& line) {
  const auto now = Clock::now();
  if (said_ && now - last_ < std::chrono::seconds(10)) {
    ++unsaid_;
    return;
  }
  std::string since = unsaid_ ? fmt::format(" ({} more since the last line)", unsaid_) : "";
  std::fputs(fmt::format("pmu-exporter: {}{}\n", line, since).c_str(), stderr);
  last_ = now, said_ = true, unsaid_ = 0;
}

// Where a request's header ends: at an empty line. evhttp takes "\n" as well as "\r\n" for a line
// end (evbuffer_readln, EVBUFFER_EOL_CRLF), and so does this.
enum class HeaderScan { kText, kLineStart, kLineStartCr };

struct ConnectionGuard::Connection {
  ConnectionGuard* guard = nullptr;
  bufferevent* socket = nullptr;  // what evhttp reads and writes; the guard holds a reference
  event* deadline = nullptr;      // request_timeout_ms after a request's first byte
  Clock::time_point idle_since = Clock::now();
  bool in_request = false;        // between a request's first byte and the end of its header
  bool closing = false;           // told evhttp to close it; gone once evhttp frees it
  bool answered_at_once = false;  // TCP_NODELAY set (once the socket has its descriptor)
  HeaderScan scan = HeaderScan::kText;

  void see(char byte);
  std::string peer() const;
  bool released_by_evhttp() const;
  void deadline_passed() { guard->request_timed_out(*this); }
};

namespace {

// evconnlistener_set_error_cb's callback gets the listener's argument, which evhttp sets to the
// evhttp: the guard of each evhttp is found here.
std::mutex registry_lock;
std::map<const evhttp*, ConnectionGuard*>& registry() {
  static std::map<const evhttp*, ConnectionGuard*> guards;
  return guards;
}

timeval timeval_of(std::uint64_t ms) {
  return timeval{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>(ms % 1000 * 1000)};
}

// The input buffer's callback (called as bytes are added, before evhttp reads them): where
// requests begin and end, from the bytes just added.
void see_input(evbuffer* input, const evbuffer_cb_info* info, void* ctx) {
  if (!info->n_added) return;
  auto& c = *static_cast<ConnectionGuard::Connection*>(ctx);
  evbuffer_ptr from;
  if (evbuffer_ptr_set(input, &from, info->orig_size - info->n_deleted, EVBUFFER_PTR_SET) != 0) return;
  const auto added = static_cast<ev_ssize_t>(info->n_added);
  const int chunks = evbuffer_peek(input, added, &from, nullptr, 0);
  std::vector<evbuffer_iovec> v(static_cast<std::size_t>(std::max(chunks, 0)));
  evbuffer_peek(input, added, &from, v.data(), chunks);
  std::size_t left = info->n_added;
  for (const auto& chunk : v)
    for (std::size_t i = 0; i < chunk.iov_len && left; ++i, --left) c.see(static_cast<const char*>(chunk.iov_base)[i]);
}

void deadline_passed(evutil_socket_t, short, void* ctx) {
  static_cast<ConnectionGuard::Connection*>(ctx)->deadline_passed();
}

}  // namespace

void ConnectionGuard::Connection::see(char byte) {
  if (!in_request) guard->begin_request(*this);
  if (byte == '\n') {
    if (scan != HeaderScan::kText) return guard->end_request(*this);
    scan = HeaderScan::kLineStart;
  } else if (byte == '\r' && scan == HeaderScan::kLineStart) {
    scan = HeaderScan::kLineStartCr;
  } else if (byte != '\r') {
    scan = HeaderScan::kText;
  }
}

// bufferevent_free clears a bufferevent's callbacks; the reference the guard holds keeps it.
bool ConnectionGuard::Connection::released_by_evhttp() const {
  bufferevent_event_cb events = nullptr;
  bufferevent_getcb(socket, nullptr, nullptr, &events, nullptr);
  return events == nullptr;
}

std::string ConnectionGuard::Connection::peer() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  char text[INET6_ADDRSTRLEN] = "?";
  if (::getpeername(bufferevent_getfd(socket), reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    const void* where = addr.ss_family == AF_INET6
                            ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_addr)
                            : static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(&addr)->sin_addr);
    ::inet_ntop(addr.ss_family, where, text, sizeof text);
  }
  return text;
}

ConnectionGuard::ConnectionGuard(event_base* base, evhttp* http, HttpLimits limits)
    : http_(http), limits_(limits), rest_(evtimer_new(base, on_rest_over, this)),
      sweep_(event_new(base, -1, EV_PERSIST, on_sweep, this)) {
  const timeval every = timeval_of(200);
  if (!rest_ || !sweep_ || event_add(sweep_, &every) != 0) throw Error("HTTP server: cannot create its timers");
  const timeval idle = timeval_of(limits_.idle_timeout_ms);
  evhttp_set_timeout_tv(http, &idle);
  evhttp_set_bevcb(http, on_accept, this);
  std::lock_guard lock(registry_lock);
  registry()[http] = this;
}

ConnectionGuard::~ConnectionGuard() {
  {
    std::lock_guard lock(registry_lock);
    registry().erase(http_);
  }
  detach();
}

void ConnectionGuard::detach() {
  if (detached_) return;
  detached_ = true;
  listener_ = nullptr;
  if (rest_) event_free(rest_);
  if (sweep_) event_free(sweep_);
  rest_ = sweep_ = nullptr;
  while (!connections_.empty()) release(*connections_.front());
}

void ConnectionGuard::sweep() {
  for (auto it = connections_.begin(); it != connections_.end();) {
    Connection* c = *it++;
    if (c->released_by_evhttp()) release(*c);
  }
  update_listener();
}

void ConnectionGuard::on_sweep(evutil_socket_t, short, void* self) {
  static_cast<ConnectionGuard*>(self)->sweep();
}

void ConnectionGuard::watch(evhttp_bound_socket* bound) {
  listener_ = evhttp_bound_socket_get_listener(bound);
  evconnlistener_set_error_cb(listener_, on_accept_error);
}

// evhttp's hook for a new connection's bufferevent, called before its descriptor is set: the sweep
// lets a closed connection's bufferevent go before a new one may take its descriptor number.
bufferevent* ConnectionGuard::on_accept(event_base* base, void* self) {
  auto& guard = *static_cast<ConnectionGuard*>(self);
  guard.sweep();
  auto c = std::make_unique<Connection>();
  c->guard = &guard;
  // As evhttp makes it (no BEV_OPT_CLOSE_ON_FREE: evhttp closes the descriptor itself).
  c->socket = bufferevent_socket_new(base, -1, 0);
  c->deadline = evtimer_new(base, deadline_passed, c.get());
  if (!c->socket || !c->deadline || !evbuffer_add_cb(bufferevent_get_input(c->socket), see_input, c.get())) {
    if (c->socket) bufferevent_free(c->socket);  // out of memory: evhttp makes one of its own, unguarded
    if (c->deadline) event_free(c->deadline);
    return nullptr;
  }
  bufferevent_incref(c->socket);
  Connection& admitted = *c.release();  // let go in release()
  guard.admit(admitted);
  return admitted.socket;
}

void ConnectionGuard::admit(Connection& c) {
  connections_.push_back(&c);
  ++stats_.accepted, ++stats_.open;
  rest_ms_ = 10;  // accept(2) works again
  if (stats_.open > limits_.max_connections) make_room(c);
  update_listener();
}

// At the cap, the connection idle longest is closed for the new one (when none is idle, the
// listener pauses: update_listener).
void ConnectionGuard::make_room(const Connection& newest) {
  Connection* idlest = nullptr;
  for (auto* c : connections_)
    if (c != &newest && !c->closing && !c->in_request && (!idlest || c->idle_since < idlest->idle_since)) idlest = c;
  if (!idlest) return;
  ++stats_.evicted;
  evictions_log_.say(fmt::format("closed an idle connection from {} to make room for a new one (max_connections {})",
                                 idlest->peer(), limits_.max_connections));
  close(*idlest);
}

void ConnectionGuard::release(Connection& c) {
  connections_.remove(&c);
  if (!c.closing) --stats_.open;
  event_free(c.deadline);
  evbuffer_remove_cb(bufferevent_get_input(c.socket), see_input, &c);
  bufferevent_decref(c.socket);
  delete &c;
}

// A response leaves in pieces (evhttp's header, then the body, up to the bufferevent's single-write
// limit each); with Nagle's algorithm the last piece waits for the client's ACK of the one before,
// which a kept-alive client delays up to 40 ms (RFC 1122 4.2.3.2 delayed ACK; RFC 896). Every
// scrape of Prometheus, which keeps its connections, would pay that wait. evhttp gives the socket
// its descriptor after the bevcb, so this is done at the first request.
namespace {
void answer_at_once(bufferevent* socket) {
  const int one = 1;
  evutil_socket_t fd = bufferevent_getfd(socket);
  if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}
}  // namespace

void ConnectionGuard::begin_request(Connection& c) {
  if (!c.answered_at_once) answer_at_once(c.socket), c.answered_at_once = true;
  c.in_request = true;
  c.scan = HeaderScan::kText;
  const timeval t = timeval_of(limits_.request_timeout_ms);
  evtimer_add(c.deadline, &t);
  update_listener();
}

void ConnectionGuard::end_request(Connection& c) {
  c.in_request = false;
  c.idle_since = Clock::now();
  evtimer_del(c.deadline);
  update_listener();
}

void ConnectionGuard::request_timed_out(Connection& c) {
  if (!c.in_request || c.closing) return;
  ++stats_.timed_out;
  timeouts_log_.say(fmt::format("closed a connection from {}: its request not complete within the request "
                                "timeout ({} ms)",
                                c.peer(), limits_.request_timeout_ms));
  close(c);
}

// shutdown(2), not close(2): evhttp owns the descriptor; it reads the end of the stream and frees
// the connection on its own turn, as any the client closed.
void ConnectionGuard::close(Connection& c) {
  c.closing = true;
  --stats_.open;
  evtimer_del(c.deadline);
  ::shutdown(bufferevent_getfd(c.socket), SHUT_RDWR);
}

void ConnectionGuard::on_accept_error(evconnlistener* listener, void* http) {
  const int err = EVUTIL_SOCKET_ERROR();
  ConnectionGuard* guard = nullptr;
  {
    std::lock_guard lock(registry_lock);
    auto it = registry().find(static_cast<const evhttp*>(http));
    if (it != registry().end()) guard = it->second;
  }
  if (!guard) return evconnlistener_disable(listener), void();
  guard->rest_after(err);
}

// Any accept(2) error libevent does not retry by itself (EMFILE, ENFILE, ENOBUFS, ENOMEM above all)
// stays until something changes: polling again at once would spin.
void ConnectionGuard::rest_after(int err) {
  ++stats_.accept_failures;
  accept_log_.say(fmt::format("accept: {}: new connections wait {} ms", errno_text(err), rest_ms_));
  resting_ = true;
  const timeval t = timeval_of(rest_ms_);
  evtimer_add(rest_, &t);
  rest_ms_ = std::min(rest_ms_ * 2, 1000u);
  update_listener();
}

void ConnectionGuard::on_rest_over(evutil_socket_t, short, void* self) {
  auto& guard = *static_cast<ConnectionGuard*>(self);
  guard.resting_ = false;
  guard.update_listener();
}

void ConnectionGuard::update_listener() {
  if (!listener_) return;
  bool any_idle = std::any_of(connections_.begin(), connections_.end(),
                              [](const Connection* c) { return !c->closing && !c->in_request; });
  bool accept = !resting_ && (stats_.open < limits_.max_connections || any_idle);
  if (accept == accepting_) return;
  accepting_ = accept;
  accept ? evconnlistener_enable(listener_) : evconnlistener_disable(listener_);
}

}  // namespace pmukit::exporter
