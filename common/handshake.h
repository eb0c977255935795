// Mutual challenge-response over the job secret, as fixed-size messages any transport can carry.
//
//   1. server -> client  ServerHello  = "HVD1" + nonce_s                      (36 bytes)
//   2. client -> server  ClientProof  = nonce_c + HMAC(secret, "client" nonce_s nonce_c)  (64 bytes)
//   3. server -> client  ServerProof  = HMAC(secret, "server" nonce_c nonce_s)            (32 bytes)
//
// Both sides then share session_key = HMAC(secret, "session" nonce_s nonce_c): frames on this connection are
// MACed with it, so a frame recorded on another connection cannot be replayed here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hvd {

inline constexpr std::size_t kServerHelloSize = 36;
inline constexpr std::size_t kClientProofSize = 64;
inline constexpr std::size_t kServerProofSize = 32;

class HandshakeServer {
 public:
  explicit HandshakeServer(std::string secret);  // raw secret bytes
  std::string hello();                            // step 1
  // Step 2 in, step 3 out; throws ProtocolError when the client does not know the secret.
  std::string verify_client(std::string_view client_proof);
  const std::string& session_key() const { return session_key_; }

 private:
  std::string secret_, nonce_s_, session_key_;
};

class HandshakeClient {
 public:
  explicit HandshakeClient(std::string secret);
  // Step 1 in, step 2 out; throws ProtocolError on a bad magic.
  std::string answer(std::string_view server_hello);
  // Step 3 in; throws ProtocolError when the server does not know the secret.
  void verify_server(std::string_view server_proof);
  const std::string& session_key() const { return session_key_; }

 private:
  std::string secret_, nonce_s_, nonce_c_, session_key_;
};

}  // namespace hvd
