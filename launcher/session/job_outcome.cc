#include "launcher/session/job_outcome.h"

#include <iostream>

#include "launcher/report/exit_codes.h"

namespace hvd::launcher {

void JobOutcome::add(int id, const std::string& label, const std::string& host) {
  exited_[id] = false;
  report_.add_rank(id, label, host);
}

void JobOutcome::started(int id, int pid) { report_.started(id, pid); }

void JobOutcome::exited(int id, const messages::Exit& exit) {
  exited_[id] = true;
  report_.exited(id, exit);
}

void JobOutcome::spawn_failed(int id, int code, const std::string& error) {
  exited_[id] = true;
  report_.spawn_failed(id, code, error);
}

void JobOutcome::gone(int id) { exited_[id] = true; }

bool JobOutcome::all_exited() const {
  for (const auto& [id, exited] : exited_) {
    if (!exited) return false;
  }
  return true;
}

bool JobOutcome::decide(int code) {
  if (exit_code_) return false;
  exit_code_ = code;
  return true;
}

int JobOutcome::conclude(const std::string& report_file, bool own_code) {
  if (!report_file.empty()) {
    std::string error;
    if (!report_.write(report_file, error)) std::cerr << "hvdrun: " << error << std::endl;
  }
  if (own_code) return exit_code_.value_or(exit_code::kOk);
  return report_.verdict().exit_code;
}

}  // namespace hvd::launcher
