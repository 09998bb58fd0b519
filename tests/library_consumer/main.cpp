// Levels 1..40 of the sieve through the installed library, with a store of
// its own: L(40) = 1022, as data/levels-170.csv has it.
#include <chomp/losing_store.hpp>
#include <chomp/sieve.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  const std::string folder = argc > 1 ? argv[1] : ".";
  const std::string store_path = folder + "/consumer.store";
  std::filesystem::remove(store_path);
  auto store = chomp::LosingStore::create(store_path, chomp::new_run_id());
  chomp::Sieve sieve(40, *store, chomp::SieveOptions{});
  std::uint64_t losing = 0;
  sieve.run([&](const chomp::LevelResult& r) { losing = r.losing; });
  std::printf("L(40) = %llu\n", static_cast<unsigned long long>(losing));
  return 0;
}
