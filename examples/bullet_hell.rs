//! A bullet-hell game's frame loop with the library, headless: build the scene once,
//! then every frame move everything, ask for the colliding pairs, and react: enemy
//! bullets that hit the player cost a life and vanish, the player's bullets damage
//! enemies and vanish, enemies out of health are destroyed.
//!
//! ```text
//! cargo run --release --example bullet_hell            # on the GPU if there is an adapter
//! cargo run --release --example bullet_hell -- cpu     # on the CPU
//! ```

use std::time::{Duration, Instant};

use gpu_collide::generate::{
    BulletHell, LAYER_ENEMY, LAYER_ENEMY_BULLET, LAYER_PLAYER, LAYER_PLAYER_BULLET,
};
use gpu_collide::{Collider, CpuCollider, GpuCollider, GpuContext};

const BODIES: usize = 2_000;
const FRAMES: usize = 120; // two seconds at 60 Hz
const DT: f32 = 1.0 / 60.0;
const ENEMY_HEALTH: u32 = 3;

fn main() -> Result<(), gpu_collide::Error> {
    // The scene: one player (body 0), enemies, and bullets from both sides.
    let mut game = BulletHell::new(BODIES, 1);
    let library = game.scene.validate()?;

    // The GPU when there is an adapter (and `cpu` was not asked for), else the CPU.
    let want_cpu = std::env::args().any(|a| a == "cpu");
    let mut collider: Box<dyn Collider> = match GpuContext::new() {
        Ok(gpu) if !want_cpu => Box::new(GpuCollider::new(&gpu, library)?),
        _ => Box::new(CpuCollider::new(library)),
    };
    println!("colliding on {}", collider.describe());

    let mut health: Vec<u32> = game
        .scene
        .bodies
        .iter()
        .map(|b| {
            if b.layer == LAYER_ENEMY {
                ENEMY_HEALTH
            } else {
                0
            }
        })
        .collect();
    let (mut lives_lost, mut enemies_destroyed, mut bullets_spent) = (0, 0, 0);
    let mut collide_time = Duration::ZERO;

    for _frame in 0..FRAMES {
        game.step(DT);

        let start = Instant::now();
        let pairs = collider.find_pairs(&game.scene.bodies)?;
        collide_time += start.elapsed();

        // React. Filters already keep out pairs that cannot matter (bullets never meet
        // bullets), so each pair is a hit of one of three kinds.
        let mut gone = vec![false; game.scene.bodies.len()];
        for [i, j] in pairs {
            let (i, j) = (i as usize, j as usize);
            let (li, lj) = (game.scene.bodies[i].layer, game.scene.bodies[j].layer);
            let (bullet, target) = match (li, lj) {
                (LAYER_ENEMY_BULLET | LAYER_PLAYER_BULLET, _) => (i, j),
                (_, LAYER_ENEMY_BULLET | LAYER_PLAYER_BULLET) => (j, i),
                _ => continue, // the player rams an enemy: nothing happens in this game
            };
            if gone[bullet] || gone[target] {
                continue; // a bullet hits once; a destroyed enemy takes no more
            }
            gone[bullet] = true;
            bullets_spent += 1;
            if game.scene.bodies[target].layer == LAYER_PLAYER {
                lives_lost += 1;
            } else {
                health[target] = health[target].saturating_sub(1);
                if health[target] == 0 {
                    gone[target] = true;
                    enemies_destroyed += 1;
                }
            }
        }

        // Remove what was hit from the bodies, their velocities and health alike.
        remove_marked(&mut game.scene.bodies, &gone);
        remove_marked(&mut game.velocities, &gone);
        remove_marked(&mut health, &gone);
    }

    println!(
        "{FRAMES} frames: the player lost {lives_lost} lives, destroyed {enemies_destroyed} \
         enemies, {bullets_spent} bullets hit something; {} of {BODIES} bodies left",
        game.scene.bodies.len()
    );
    println!(
        "find_pairs took {:.2} ms a frame on average",
        collide_time.as_secs_f64() * 1e3 / FRAMES as f64
    );
    Ok(())
}

/// Removes the items whose mark is set, keeping the others in order.
fn remove_marked<T>(items: &mut Vec<T>, marked: &[bool]) {
    let mut k = 0;
    items.retain(|_| {
        k += 1;
        !marked[k - 1]
    });
}
