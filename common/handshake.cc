#include "common/handshake.h"

#include "common/crypto.h"
#include "common/error.h"

namespace hvd {
namespace {
constexpr std::string_view kMagic = "HVD1";
constexpr std::size_t kNonceSize = 32;

std::string tagged(std::string_view tag, std::string_view a, std::string_view b) {
  std::string s(tag);
  s.append(a).append(b);
  return s;
}
}  // namespace

HandshakeServer::HandshakeServer(std::string secret) : secret_(std::move(secret)) {}

std::string HandshakeServer::hello() {
  nonce_s_ = random_bytes(kNonceSize);
  return std::string(kMagic) + nonce_s_;
}

std::string HandshakeServer::verify_client(std::string_view client_proof) {
  if (client_proof.size() != kClientProofSize) throw ProtocolError("handshake: short client proof");
  std::string_view nonce_c = client_proof.substr(0, kNonceSize);
  std::string_view mac = client_proof.substr(kNonceSize);
  if (!equal_constant_time(mac, hmac_sha256(secret_, tagged("client", nonce_s_, nonce_c)))) {
    throw ProtocolError("handshake: the peer does not know the job secret");
  }
  session_key_ = hmac_sha256(secret_, tagged("session", nonce_s_, nonce_c));
  return hmac_sha256(secret_, tagged("server", nonce_c, nonce_s_));
}

HandshakeClient::HandshakeClient(std::string secret) : secret_(std::move(secret)) {}

std::string HandshakeClient::answer(std::string_view server_hello) {
  if (server_hello.size() != kServerHelloSize || server_hello.substr(0, kMagic.size()) != kMagic) {
    throw ProtocolError("handshake: the server is not an hvd coordinator (bad greeting)");
  }
  nonce_s_ = std::string(server_hello.substr(kMagic.size()));
  nonce_c_ = random_bytes(kNonceSize);
  return nonce_c_ + hmac_sha256(secret_, tagged("client", nonce_s_, nonce_c_));
}

void HandshakeClient::verify_server(std::string_view server_proof) {
  if (!equal_constant_time(server_proof, hmac_sha256(secret_, tagged("server", nonce_c_, nonce_s_)))) {
    throw ProtocolError("handshake: the server does not know the job secret");
  }
  session_key_ = hmac_sha256(secret_, tagged("session", nonce_s_, nonce_c_));
}

}  // namespace hvd
