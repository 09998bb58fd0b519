/// @file run_claim.cpp
/// @brief RunClaim: an OFD lock on OUTPUT.lock, held for the whole run.

#include "run_claim.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "plain_checks.hpp"

namespace chomp::app {

namespace {

/// The process id a lock file records ("" when it records none).
std::string holder_of(int fd) {
  char buf[32] = {};
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  std::string pid;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) pid.push_back(buf[i]);
  return pid;
}

}  // namespace

RunClaim::RunClaim(const std::string& output) : path_(lock_path(output)) {
  // A claim whose file its holder removed while this run opened it is
  // retried on the new file; a handful of rounds settles any race.
  for (int round = 0; round < 1000; ++round) {
    const int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      if (errno == ELOOP)
        throw std::runtime_error(printable(path_, 200) + " is a symbolic link; remove it (it is the lock file of "
                                 "a run on " + printable(output, 200) + ")");
      return;  // no file can be made there: the run's first write reports it
    }
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
      const int e = errno;
      // The holder writes its id just after it locks: wait for it a moment.
      std::string pid = holder_of(fd);
      for (int wait = 0; pid.empty() && wait < 100; ++wait) {
        usleep(2000);
        pid = holder_of(fd);
      }
      close(fd);
      if (e != EAGAIN && e != EACCES) return;  // a file system without locks: nothing to claim with
      throw std::runtime_error(printable(output, 200) + " is being written by another chomp process" +
                               (pid.empty() ? std::string() : " (process " + pid + ")") + ", which holds " +
                               printable(path_, 200) + "; let it finish, or stop it (SIGINT or SIGTERM) and "
                               "then resume");
    }
    struct stat held {}, named {};
    if (fstat(fd, &held) != 0 || stat(path_.c_str(), &named) != 0 || held.st_ino != named.st_ino ||
        held.st_dev != named.st_dev) {
      close(fd);  // its holder removed it as this run opened it
      continue;
    }
    const std::string pid = std::to_string(getpid()) + "\n";
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
      // A full disk: the lock holds without the process id.
    }
    fd_ = fd;
    return;
  }
  throw std::runtime_error("cannot claim " + printable(path_, 200) + ": it keeps being replaced");
}

bool RunClaim::held(const std::string& output) {
  // A run given a symbolic link as --output claims its target's lock.
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::canonical(output, ec);
  const int fd = open(lock_path(ec ? output : target.string()).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return errno != ENOENT;  // (unreadable: cannot tell, taken as held)
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  // (A file system without locks cannot tell: taken as held.)
  const bool locked = fcntl(fd, F_OFD_GETLK, &fl) != 0 || fl.l_type != F_UNLCK;
  close(fd);
  return locked;
}

RunClaim::~RunClaim() {
  if (fd_ < 0) return;
  // Removed while held: a run that opened it meanwhile finds it gone.
  unlink(path_.c_str());
  close(fd_);
}

}  // namespace chomp::app
